import { Injectable } from '@nestjs/common';
import { domainEvent, PageQuery, Paginated, paginated, Problem, TransactionRunner } from '@app/core';
import { ServiceOwnership } from '@app/services';
import { BucketResponse } from './dto/bucket.response';
import { ObjectStorageProvider, ObjectStorageUnavailableError } from './object-storage-provider';
import { ObjectStorageUsersRepository } from './object-storage-users.repository';
import { gatewayUid } from './s3-keys';
import type { ObjectStorageQuotaEvent } from './object-storage.events';

/** A reading on demand is taken at most this often per service; a newer one is answered as stored. */
export const ON_DEMAND_MIN_AGE_SECONDS = 60;
const LEVELS = [100, 80] as const;

/** Usage from the gateway's user stats (synced from the buckets first), and the 80 % and 100 % quota notices. */
@Injectable()
export class ObjectStorageUsage {
  constructor(
    private readonly users: ObjectStorageUsersRepository,
    private readonly ownership: ServiceOwnership,
    private readonly provider: ObjectStorageProvider,
    private readonly tx: TransactionRunner,
  ) {}

  /** The customer's refresh: 404 for another account's service, at most one gateway reading a minute. */
  async refreshFor(accountId: string, serviceId: string): Promise<void> {
    await this.owned(accountId, serviceId);
    await this.refresh(serviceId, ON_DEMAND_MIN_AGE_SECONDS).catch((err: unknown) => Promise.reject(unavailable(err)));
  }

  /** Reads the gateway unless a reading is younger than `minAgeSeconds`; notifies when a quota level is crossed upwards. */
  async refresh(serviceId: string, minAgeSeconds: number): Promise<void> {
    const target = await this.users.usageTarget(serviceId);
    if (!target) return;
    if (target.usage_updated_at && Date.now() - target.usage_updated_at.getTime() < minAgeSeconds * 1000) return;
    const usage = await this.provider.usage(gatewayUid(serviceId), target.region);
    if (!usage) return;
    const quotaBytes = Number(target.quota_bytes);
    const quotaObjects = Number(target.quota_objects);
    const fullness = Math.max(usage.usedBytes / quotaBytes, usage.objects / quotaObjects) * 100;
    const level = LEVELS.find((l) => fullness >= l) ?? 0;
    const previous = await this.users.recordUsage(serviceId, usage, level, minAgeSeconds);
    if (previous === null || level <= previous) return;
    this.tx.emit(
      domainEvent<ObjectStorageQuotaEvent>('object_storage.quota_warning', target.account_id, {
        serviceId,
        serviceName: target.name,
        percent: level as 80 | 100,
        usedBytes: usage.usedBytes,
        quotaBytes,
        objects: usage.objects,
        quotaObjects,
      }),
    );
  }

  async buckets(accountId: string, serviceId: string, query: PageQuery): Promise<Paginated<BucketResponse>> {
    await this.owned(accountId, serviceId);
    const target = await this.users.usageTarget(serviceId);
    if (!target) return paginated([], query, 0);
    const all = await this.provider.buckets(gatewayUid(serviceId), target.region).catch((err: unknown) => Promise.reject(unavailable(err)));
    all.sort((a, b) => a.name.localeCompare(b.name));
    const start = (query.page - 1) * query.pageSize;
    return paginated(all.slice(start, start + query.pageSize).map(BucketResponse.from), query, all.length);
  }

  private async owned(accountId: string, serviceId: string): Promise<void> {
    const service = await this.ownership.stateFor(accountId, serviceId);
    if (!service) throw Problem.notFound('Service');
    if (service.type !== 'object_storage')
      throw new Problem(404, 'not_found', 'This service has no object storage (it is not an object storage service).');
  }
}

function unavailable(err: unknown): unknown {
  if (err instanceof ObjectStorageUnavailableError)
    return new Problem(503, 'unavailable', 'The storage gateway cannot be reached; try again later.');
  return err;
}
