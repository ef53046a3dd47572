import { Injectable, OnModuleInit } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import type { ObjectStorageSpecs } from '@app/products';
import { NewServiceBatch, ServiceKind, ServiceKinds, ServiceResponse, ServiceStatus } from '@app/services';
import { ObjectStorageLifecycle, quotaOf } from '../object-storage-lifecycle';
import { ObjectStorageUsersRepository, StorageSummaryRow } from '../object-storage-users.repository';
import { OBJECT_STORAGE_PART, ObjectStorageSummaryResponse } from './dto/object-storage-summary.response';

/** Object storage as a kind of service: its gateway user (made and changed by ObjectStorageSync), and the `objectStorage` of its response. */
@Injectable()
export class ObjectStorageKind extends ServiceKind<unknown, ObjectStorageSummaryResponse> implements OnModuleInit {
  readonly type = 'object_storage';
  readonly part = OBJECT_STORAGE_PART;

  constructor(
    private readonly kinds: ServiceKinds,
    private readonly lifecycle: ObjectStorageLifecycle,
    private readonly users: ObjectStorageUsersRepository,
  ) {
    super();
  }

  onModuleInit(): void {
    this.kinds.register(this);
  }

  /** Nothing stored yet; `pending` until the gateway has the user (always `active` on the simulator). */
  async provision(manager: EntityManager, { ids, product }: NewServiceBatch): Promise<Map<string, ObjectStorageSummaryResponse>> {
    const state = await this.lifecycle.provisioned(manager, ids, product);
    const { quotaBytes, quotaObjects } = quotaOf(product.specs as ObjectStorageSpecs);
    const part = (): ObjectStorageSummaryResponse => ({
      state,
      usedBytes: null,
      objects: null,
      buckets: null,
      quotaBytes,
      quotaObjects,
      usageUpdatedAt: null,
    });
    return new Map(ids.map((id) => [id, part()]));
  }

  /** The gateway makes the users at once if it can; the services show the state they reached. */
  override async provisioned(services: ServiceResponse[]): Promise<void> {
    const states = await this.lifecycle.settleNew(services.map((service) => service.id));
    for (const service of services) service.objectStorage!.state = states.get(service.id) ?? service.objectStorage!.state;
  }

  override statusChanged(manager: EntityManager, serviceId: string, status: ServiceStatus): Promise<void> {
    return this.lifecycle.statusChanged(manager, serviceId, status);
  }

  override async statusSettled(service: ServiceResponse): Promise<void> {
    if (service.objectStorage) service.objectStorage.state = (await this.lifecycle.settle([service.id])).get(service.id)!;
  }

  async summaries(serviceIds: string[], manager?: EntityManager): Promise<Map<string, ObjectStorageSummaryResponse>> {
    const rows = await this.users.summaries(serviceIds, manager);
    return new Map(rows.map((row) => [row.id, storagePart(row)]));
  }
}

function storagePart(row: StorageSummaryRow): ObjectStorageSummaryResponse {
  return {
    state: row.state,
    usedBytes: row.usedBytes ?? null,
    objects: row.objects ?? null,
    buckets: row.buckets ?? null,
    quotaBytes: row.quotaBytes ?? 0,
    quotaObjects: row.quotaObjects ?? 0,
    usageUpdatedAt: row.usageUpdatedAt ?? null,
  };
}
