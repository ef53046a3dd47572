import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { ActivityEntry, AppConfig, isoTimestamp, JobOptions, JobQueue } from '@app/core';
import { DeliveriesRepository, DeliveryRow } from './deliveries.repository';

export const DELIVERY_JOB = 'webhook-delivery';
/** pg-boss retries a job whose handler threw (a database error), not a failed attempt: those are ours. */
const JOB_OPTIONS: JobOptions = { retryLimit: 3, retryDelaySeconds: 5, retryBackoff: true };

/**
 * A delivery of the endpoint came due (or, with `watchdog`, a lease holder's session needs looking
 * after): the job sees that the endpoint's lease holder, or this process, drains its due deliveries.
 */
export interface DeliveryJob {
  /** Absent in jobs an older version queued: the delivery names it. */
  endpointId?: string;
  deliveryId?: string;
  /** Attempts made before this one (what a process of an older version reads). */
  attempt?: number;
  /** The holder whose session this job looks after: if the holder died, the job takes over its endpoint. */
  watchdog?: string;
}

/** A delivery row and its job, always together: in the caller's transaction; and a lease holder's watchdog job. */
@Injectable()
export class DeliveryOutbox {
  constructor(
    private readonly deliveries: DeliveriesRepository,
    private readonly jobs: JobQueue,
    private readonly config: AppConfig,
  ) {}

  /** A new delivery of an activity entry to one endpoint, with its first attempt due now. */
  async enqueue(manager: EntityManager, endpointId: string, entry: ActivityEntry): Promise<DeliveryRow> {
    const timestamp = isoTimestamp(entry.createdAt);
    const data = {
      id: entry.id,
      entity: entry.entity,
      actor: entry.actor,
      status: entry.status,
      createdAt: timestamp,
      details: entry.details,
    };
    const row = await this.deliveries.insert(manager, {
      endpointId,
      messageId: `msg_${randomUUID().replace(/-/g, '')}`,
      eventType: entry.action,
      body: JSON.stringify({ type: entry.action, timestamp, data }),
      retryWindowSeconds: this.config.webhooks.retryWindowSeconds,
    });
    // The job only says "this endpoint has due deliveries": one waiting job says it for all of them.
    const options = { ...JOB_OPTIONS, coalesceKey: `endpoint:${endpointId}` };
    await this.jobs.send<DeliveryJob>(DELIVERY_JOB, { endpointId, deliveryId: row.id, attempt: 0 }, options, manager);
    return row;
  }

  /** The job, `afterSeconds` from now. */
  schedule(job: DeliveryJob, afterSeconds: number, manager?: EntityManager): Promise<void> {
    const options = afterSeconds ? { ...JOB_OPTIONS, startAfterSeconds: afterSeconds } : JOB_OPTIONS;
    return this.jobs.send<DeliveryJob>(DELIVERY_JOB, job, options, manager);
  }

  /** Looks after the session of the endpoint's lease `holder` `afterSeconds` from now (see EndpointDrains). */
  watchdog(endpointId: string, holder: string, afterSeconds: number): Promise<void> {
    return this.schedule({ endpointId, watchdog: holder }, afterSeconds);
  }
}
