import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { AppConfig } from '@app/core';
import type { CatalogProduct, ObjectStorageSpecs } from '@app/products';
import type { ServiceStatus } from '@app/services';
import { ObjectStorageCredentialsRepository } from './object-storage-credentials.repository';
import { ObjectStorageProvider } from './object-storage-provider';
import { ObjectStorageSync } from './object-storage-sync';
import { GatewayState, ObjectStorageUsersRepository } from './object-storage-users.repository';
import { newAccessKeyId, serviceBucket } from './s3-keys';

/** At most this many services are made on the gateway inside the provisioning call; the queue does the rest. */
const INLINE_LIMIT = 20;

/** What provisioning and billing status changes do to a service's gateway user (through ObjectStorageSync). */
@Injectable()
export class ObjectStorageLifecycle {
  constructor(
    private readonly users: ObjectStorageUsersRepository,
    private readonly credentials: ObjectStorageCredentialsRepository,
    private readonly provider: ObjectStorageProvider,
    private readonly sync: ObjectStorageSync,
    private readonly config: AppConfig,
  ) {}

  /**
   * In the provisioning transaction: the limits from the product and, on a real gateway, the key's
   * id (made here, so a repeated step adds this key and no other; the gateway makes its secret) and
   * a queued job to make the user. Returns the state the new services start in.
   */
  async provisioned(manager: EntityManager, serviceIds: string[], product: CatalogProduct): Promise<GatewayState> {
    const specs = product.specs as ObjectStorageSpecs;
    const location = this.provider.location()!;
    await this.users.insertMany(manager, {
      serviceIds,
      region: location.region,
      ...quotaOf(specs),
      applied: !this.provider.remote,
    });
    if (!this.provider.remote) return 'active';
    for (const id of serviceIds) {
      await this.credentials.insert(manager, id, { ...location, bucket: serviceBucket(id), accessKeyId: newAccessKeyId() });
      await this.sync.enqueue(manager, id);
    }
    return 'pending';
  }

  /** After COMMIT of a provisioning: the states the gateway brought new services to; none on the simulator, where they start settled. */
  async settleNew(serviceIds: string[]): Promise<Map<string, GatewayState | 'pending'>> {
    return this.provider.remote ? this.settle(serviceIds) : new Map();
  }

  /** In the transaction of a change the gateway must follow (a new key, whose secret it makes; the simulator too). */
  async changed(manager: EntityManager, serviceId: string): Promise<void> {
    await this.users.bump(manager, serviceId);
    await this.sync.enqueue(manager, serviceId);
  }

  /** In the status change's transaction. A termination also queues the purge for its time. */
  async statusChanged(manager: EntityManager, serviceId: string, status: ServiceStatus): Promise<void> {
    const delaySeconds = this.config.objectStorage.purgeAfterDays * 86_400;
    await this.users.bump(manager, serviceId, status === 'terminated' ? new Date(Date.now() + delaySeconds * 1000) : null);
    await this.sync.enqueue(manager, serviceId);
    if (status === 'terminated') await this.sync.enqueue(manager, serviceId, delaySeconds + 1);
  }

  /** After COMMIT: the gateway follows at once if it can; returns each service's state then. */
  async settle(serviceIds: string[]): Promise<Map<string, GatewayState | 'pending'>> {
    await this.sync.tryNow(serviceIds.slice(0, INLINE_LIMIT));
    return this.users.states(serviceIds);
  }
}

/** The gateway limits of a product: storageGb in decimal gigabytes, as the catalogue sells them. */
export function quotaOf(specs: ObjectStorageSpecs): { quotaBytes: number; quotaObjects: number; maxBuckets: number } {
  return {
    quotaBytes: Math.round(specs.storageGb * 1e9),
    quotaObjects: specs.maxObjects ?? 1_000_000,
    maxBuckets: specs.maxBuckets ?? 100,
  };
}
