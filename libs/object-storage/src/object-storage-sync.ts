import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { AppConfig, holdLease, JobQueue, SecretBox } from '@app/core';
import { ObjectStorageCredentialsRepository } from './object-storage-credentials.repository';
import { ObjectStorageProvider } from './object-storage-provider';
import { GatewayState, GatewayWork, ObjectStorageUsersRepository } from './object-storage-users.repository';
import { gatewayUid } from './s3-keys';

export const SYNC_JOB = 'object-storage-sync';
/** Longer than the steps of one sync can take (a handful of gateway calls, each bounded by RGW_TIMEOUT_MS). */
const LEASE_SECONDS = 120;
const RETRY_WINDOW_SECONDS = 600;
/** Services synced at once per process: one slow or failing service must not hold up the others' changes. */
const CONCURRENCY = 4;
/** Gateway calls a caller waits through for another process's lease before it answers with the change still pending. */
const WAIT_CALLS = 4;

/**
 * Brings a service's gateway user in line with the service: created with its quota and bucket,
 * its key added (the gateway makes the secret, stored sealed from its answer), suspended or
 * enabled with the billing status, its keys removed at termination and the user
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
    private readonly credentials: ObjectStorageCredentialsRepository,
    private readonly provider: ObjectStorageProvider,
    private readonly box: SecretBox,
    private readonly jobs: JobQueue,
    private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    // A job that finds the lease held while a change is pending is retried, not completed: the
    // holder may fail (a caller's try is not retried) and then nothing would apply the change.
    this.jobs.work<{ serviceId: string }>(
      SYNC_JOB,
      async (job) => {
        if ((await this.run(job.serviceId)) === 'busy') throw new Error('another process holds the service’s lease');
      },
      { concurrency: CONCURRENCY },
    );
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

  /**
   * After COMMIT, in the caller's process: tries at once; a failure is left to the queued job.
   * While another process holds a service's lease (its queued job, or a concurrent change), the
   * caller waits for it a few gateway calls' time, so what it answers is what the gateway has.
   */
  async tryNow(serviceIds: string[]): Promise<void> {
    const deadline = Date.now() + WAIT_CALLS * this.config.objectStorage.requestTimeoutMs;
    for (const id of serviceIds) {
      try {
        while ((await this.run(id)) === 'busy' && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
      } catch (err) {
        this.logger.warn(`Object storage ${id}: ${(err as Error).message}; the queue retries it`);
      }
    }
  }

  /**
   * Throws when the gateway failed, so the queue retries the job. 'busy': another process holds
   * the lease; it goes on while changes are pending, or its lease expires and the minute scan re-queues.
   */
  async run(serviceId: string): Promise<'done' | 'busy'> {
    for (let round = 0; round < 5; round++) {
      const held = await holdLease(this.users, serviceId, LEASE_SECONDS, async (work) =>
        this.users.settle(serviceId, work.desiredVersion, await this.apply(work)),
      );
      if (!held.taken) return round === 0 && (await this.users.pending(serviceId)) ? 'busy' : 'done';
      if (!held.result) return 'done';
    }
    return 'done';
  }

  private async apply(work: GatewayWork): Promise<GatewayState> {
    const target = targetState(work);
    if (work.appliedVersion >= work.desiredVersion && work.gatewayState === target) return target;
    const uid = gatewayUid(work.serviceId);
    if (target === 'purged') {
      await this.provider.purge(uid, work.region);
      return target;
    }
    const keys =
      target !== 'closed' && work.accessKeyId
        ? [{ accessKeyId: work.accessKeyId, secretAccessKey: work.secretSealed ? this.box.open(work.secretSealed) : null }]
        : [];
    const made = await this.provider.apply({
      uid,
      region: work.region,
      displayName: `Service ${work.serviceId}`,
      quotaBytes: work.quotaBytes,
      quotaObjects: work.quotaObjects,
      maxBuckets: work.maxBuckets,
      suspended: target !== 'active',
      keys,
      bucket: target === 'active' ? work.bucket : null,
    });
    // Stored before the change counts as applied, so whoever waits for it finds the secret.
    for (const key of made) await this.credentials.storeSecret(work.serviceId, key.accessKeyId, this.box.seal(key.secretAccessKey));
    return target;
  }
}

/** Active: usable; pending, suspended, cancelled: suspended; terminated: no keys, then purged. */
function targetState(work: GatewayWork): GatewayState {
  if (work.status === 'terminated') return work.purgeDue ? 'purged' : 'closed';
  return work.status === 'active' ? 'active' : 'suspended';
}
