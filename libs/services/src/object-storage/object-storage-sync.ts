import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { AppConfig, JobQueue, SecretBox } from '@app/core';
import { ObjectStorageProvider } from './object-storage-provider';
import { GatewayState, GatewayWork, ObjectStorageUsersRepository } from './object-storage-users.repository';
import { gatewayUid } from './s3-keys';

export const SYNC_JOB = 'object-storage-sync';
/** Longer than the steps of one sync can take (a handful of gateway calls, each bounded by RGW_TIMEOUT_MS). */
const LEASE_SECONDS = 120;
const RETRY_WINDOW_SECONDS = 600;

/**
 * Brings a service's gateway user in line with the service: created with its quota and bucket,
 * suspended or enabled with the billing status, its keys removed at termination and the user
 * purged after OBJECT_STORAGE_PURGE_AFTER_DAYS. Each change bumps the row's version and queues a
 * job in the same transaction; whoever holds the row's lease applies the newest version, so a
 * gateway that is down only delays the job (retried every OBJECT_STORAGE_RETRY_SECONDS), and two processes never
 * apply at once. The provider's steps look before acting, so a repeat adopts what exists.
 */
@Injectable()
export class ObjectStorageSync implements OnModuleInit {
  private readonly logger = new Logger('ObjectStorage');

  constructor(
    private readonly users: ObjectStorageUsersRepository,
    private readonly provider: ObjectStorageProvider,
    private readonly box: SecretBox,
    private readonly jobs: JobQueue,
    private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    this.jobs.work<{ serviceId: string }>(SYNC_JOB, (job) => this.run(job.serviceId));
  }

  /** In the transaction that made the change, so the job exists iff the change committed. */
  async enqueue(manager: EntityManager | undefined, serviceId: string, startAfterSeconds?: number): Promise<void> {
    const { retrySeconds } = this.config.objectStorage;
    await this.jobs.send(
      SYNC_JOB,
      { serviceId },
      // A fixed delay (pg-boss's backoff has no ceiling), for about ten minutes; then the minute scan re-queues it.
      {
        retryLimit: Math.ceil(RETRY_WINDOW_SECONDS / retrySeconds),
        retryDelaySeconds: retrySeconds,
        retryBackoff: false,
        startAfterSeconds,
      },
      manager,
    );
  }

  /** After COMMIT, in the caller's process: tries at once; a failure is left to the queued job. */
  async tryNow(serviceIds: string[]): Promise<void> {
    for (const id of serviceIds) {
      await this.run(id).catch((err: Error) => this.logger.warn(`Object storage ${id}: ${err.message}; the queue retries it`));
    }
  }

  /** Throws when the gateway failed, so the queue retries the job. */
  async run(serviceId: string): Promise<void> {
    for (let round = 0; round < 5; round++) {
      const work = await this.users.lease(serviceId, LEASE_SECONDS);
      if (!work) return; // another process holds the lease and settles what is pending
      let pending: boolean;
      try {
        pending = await this.users.settle(serviceId, work.desiredVersion, await this.apply(work));
      } catch (err) {
        await this.users.release(serviceId, (err as Error).message);
        throw err;
      }
      if (!pending) return;
    }
  }

  private async apply(work: GatewayWork): Promise<GatewayState> {
    const target = targetState(work);
    if (work.appliedVersion >= work.desiredVersion && work.gatewayState === target) return target;
    const uid = gatewayUid(work.serviceId);
    if (target === 'purged') {
      await this.provider.purge(uid, work.region);
      return target;
    }
    const key =
      target !== 'closed' && work.accessKeyId && work.secretSealed
        ? [{ accessKeyId: work.accessKeyId, secretAccessKey: this.box.open(work.secretSealed) }]
        : [];
    await this.provider.apply({
      uid,
      region: work.region,
      displayName: `Service ${work.serviceId}`,
      quotaBytes: work.quotaBytes,
      quotaObjects: work.quotaObjects,
      maxBuckets: work.maxBuckets,
      suspended: target !== 'active',
      keys: key,
      bucket: target === 'active' ? work.bucket : null,
    });
    return target;
  }
}

/** Active: usable; pending, suspended, cancelled: suspended; terminated: no keys, then purged. */
function targetState(work: GatewayWork): GatewayState {
  if (work.status === 'terminated') return work.purgeDue ? 'purged' : 'closed';
  return work.status === 'active' ? 'active' : 'suspended';
}
