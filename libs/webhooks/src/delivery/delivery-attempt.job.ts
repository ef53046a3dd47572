import { Injectable, OnModuleInit } from '@nestjs/common';
import { JobQueue } from '@app/core';
import { DeliveriesRepository } from './deliveries.repository';
import { DELIVERY_JOB, DeliveryJob, DeliveryOutbox } from './delivery-outbox';
import { EndpointDrains } from './endpoint-drains';

/**
 * Job workers in this process. A job only hands its endpoint to EndpointDrains (a statement at
 * most); the attempts run in the drains, not in the workers. Eight let a backlog's jobs be fetched
 * eight at a time and completed together (GroupedCompletions): about a quarter of a statement per
 * job instead of two.
 */
const JOB_WORKERS = 8;

/** The queue worker: a delivery came due (or a lease holder's watchdog is due), so its endpoint is drained. */
@Injectable()
export class DeliveryAttemptJob implements OnModuleInit {
  constructor(
    private readonly deliveries: DeliveriesRepository,
    private readonly drains: EndpointDrains,
    private readonly outbox: DeliveryOutbox,
    private readonly jobs: JobQueue,
  ) {}

  onModuleInit(): void {
    this.jobs.work<DeliveryJob>(DELIVERY_JOB, (job) => this.run(job), { concurrency: JOB_WORKERS });
  }

  async run(job: DeliveryJob): Promise<void> {
    const endpointId = job.endpointId ?? (job.deliveryId ? await this.deliveries.endpointOf(job.deliveryId) : null);
    if (!endpointId) return; // the delivery went with its endpoint
    if ((await this.drains.poke(endpointId, job.watchdog)) === 'retry') await this.outbox.schedule(job, 1);
  }
}
