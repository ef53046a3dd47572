import { randomUUID } from 'node:crypto';
import { BeforeApplicationShutdown, Injectable, Logger } from '@nestjs/common';
import { AppConfig, JobQueue, takeLease, WorkSlots } from '@app/core';
import { DeliveryOutcomes, Sent } from './delivery-outcomes';
import { DeliveryOutbox } from './delivery-outbox';
import { DeliverySigner } from './delivery-signer';
import { Claim, EndpointLeasesRepository, Lease, LEASE_SECONDS } from './endpoint-leases.repository';
import { SendResult, WebhookSender } from './webhook-sender';

/** How long shutdown waits for the attempts under way to be recorded (they are cut at once). */
const SHUTDOWN_WAIT_MS = 5_000;

/** A drain under way in this process. */
interface Drain {
  holder: string;
  /** A job of the endpoint came while it drained: look again before letting go of the lease. */
  poked: boolean;
  done: Promise<void>;
}

/**
 * The endpoints this process is delivering to, each drained by its lease holder (issue 30, item 4).
 *
 * A job says "the endpoint has something due". The process that takes the endpoint's lease sends
 * its due deliveries one at a time, oldest first, each claim renewing the lease, until none is due;
 * a job that finds the lease held pokes the holder and ends, so a busy endpoint's jobs do not come
 * back. The drain runs beside the job queue's workers, not in one: WEBHOOKS_CONCURRENCY bounds the
 * endpoints served at once per process, a slow one holds only its own drain.
 *
 * At-least-once without the job: every lease taken schedules a watchdog job for when it would
 * expire. If the holder is still at work then, the watchdog comes back at the lease's new expiry;
 * if the holder died, the lease has expired and the watchdog takes it, sending again the claim
 * whose outcome was never recorded (same attempt number, same webhook-id) and the rest.
 */
@Injectable()
export class EndpointDrains implements BeforeApplicationShutdown {
  private readonly logger = new Logger('Webhooks');
  private readonly drains = new Map<string, Drain>();
  private stopped = false;
  /** Drains running or being started; at most WEBHOOKS_CONCURRENCY. */
  private readonly slots = new WorkSlots(
    () => this.config.webhooks.concurrency,
    () => this.stopping,
    'Webhook deliveries are stopping; the job will be retried',
  );

  constructor(
    private readonly leases: EndpointLeasesRepository,
    private readonly outbox: DeliveryOutbox,
    private readonly sender: WebhookSender,
    private readonly signer: DeliverySigner,
    private readonly outcomes: DeliveryOutcomes,
    private readonly jobs: JobQueue,
    private readonly config: AppConfig,
  ) {}

  /**
   * The endpoint has something due (or, with `watchdog`, the session of that holder needs looking
   * after). 'retry': the lease is held by a process of the version before issue 30, which does not
   * read pokes; the job comes back a second later, as it did then.
   */
  async poke(endpointId: string, watchdog?: string): Promise<'retry' | void> {
    const local = this.drains.get(endpointId);
    if (local) {
      if (!watchdog) local.poked = true;
      else if (local.holder === watchdog) await this.outbox.watchdog(endpointId, watchdog, LEASE_SECONDS + 1);
      return;
    }
    await this.slots.take();
    let started = false;
    try {
      // Another job may have started a drain of this endpoint while this one waited for a slot.
      if (this.drains.has(endpointId)) return await this.poke(endpointId, watchdog);
      const holder = randomUUID();
      const held = await takeLease(this.leases, { endpointId, holder }, LEASE_SECONDS);
      if (!held) return;
      const { key: lease, work: taken } = held;
      if (!taken.leased) {
        if (taken.holder === null) return 'retry';
        // The holder is alive (its lease was renewed): look again when it would expire.
        if (taken.holder === watchdog) await this.outbox.watchdog(endpointId, watchdog, secondsUntil(taken.until) + 1);
        return;
      }
      try {
        await this.outbox.watchdog(endpointId, holder, LEASE_SECONDS + 1);
      } catch (err) {
        await held.release().catch(() => undefined);
        throw err;
      }
      const drain: Drain = { holder, poked: false, done: Promise.resolve() };
      this.drains.set(endpointId, drain);
      drain.done = this.drain(lease, drain)
        .catch((err: Error) => this.logger.error(`Deliveries to endpoint ${endpointId}: ${err.message}; the watchdog will resume them`))
        .finally(() => this.ended(endpointId, drain));
      started = true;
    } finally {
      if (!started) this.slots.free();
    }
  }

  /** Stops claiming, cuts the attempts under way and waits (a while) for their outcomes to be recorded. */
  async beforeApplicationShutdown(): Promise<void> {
    this.stopped = true;
    this.slots.wakeAll();
    this.sender.beforeApplicationShutdown();
    const drains = [...this.drains.values()].map((d) => d.done);
    await Promise.race([Promise.all(drains), new Promise((resolve) => setTimeout(resolve, SHUTDOWN_WAIT_MS).unref())]);
  }

  private get stopping(): boolean {
    return this.stopped || this.jobs.stopping;
  }

  private async drain(lease: Lease, drain: Drain): Promise<void> {
    let claim = await this.leases.claimNext(lease);
    for (;;) {
      claim = await this.sendClaimed(lease, claim);
      if (!claim) return; // the lease expired and another holder has it
      if (this.stopping) return this.leases.release(lease); // a delivery claimed and not sent is made due by the next holder
      if (!claim.endpoint.enabled) await this.leases.failDue(lease.endpointId, 'the endpoint is disabled');
      if (drain.poked) drain.poked = false;
      else if (await this.leases.releaseUnlessPoked(lease)) return;
      claim = await this.leases.claimNext(lease);
    }
  }

  /**
   * Sends the claimed delivery and those claimed after it, one at a time. While one is sent, the one
   * before is recorded and the next claimed (one statement for a success), so the database's round
   * trip overlaps the attempt instead of following it. Returns the last claim: nothing left to send
   * (or stopping), or null when the lease is lost.
   */
  private async sendClaimed(lease: Lease, claim: Claim | null): Promise<Claim | null> {
    let sent: Sent | null = null;
    for (;;) {
      if (!claim?.delivery || this.stopping) {
        if (!sent) return claim;
        claim = await this.outcomes.record(lease, sent, !this.stopping);
        sent = null;
        continue;
      }
      const { endpoint, delivery } = claim;
      const startedAt = new Date();
      const [result, next]: [SendResult, Claim | null] = await Promise.all([
        this.sender.send(endpoint.url, this.signer.headers(endpoint, delivery), delivery.body),
        sent ? this.outcomes.record(lease, sent, true) : this.leases.claimNext(lease),
      ]);
      sent = { endpoint, delivery, startedAt, result };
      claim = next;
    }
  }

  private ended(endpointId: string, drain: Drain): void {
    this.drains.delete(endpointId);
    this.slots.free();
    // A job that came while the lease was being let go: its delivery may not have been seen.
    if (drain.poked && !this.stopping) {
      this.poke(endpointId).catch((err: Error) => this.logger.error(`Deliveries to endpoint ${endpointId}: ${err.message}`));
    }
  }
}

function secondsUntil(at: Date | string): number {
  return Math.max(0, Math.ceil((new Date(at).getTime() - Date.now()) / 1000));
}
