import { randomUUID } from 'node:crypto';
import { BeforeApplicationShutdown, Injectable, Logger } from '@nestjs/common';
import { AppConfig, JobQueue, takeLease, WorkSlots } from '@app/core';
import { DeliveryOutcomes, Sent } from './delivery-outcomes';
import { DeliveryOutbox } from './delivery-outbox';
import { DeliverySigner } from './delivery-signer';
import { Claim, EndpointLeasesRepository, Lease, LEASE_SECONDS } from './endpoint-leases.repository';
import { WebhookSender } from './webhook-sender';

/** How long shutdown waits for the attempts under way to be recorded (they are cut at once). */
const SHUTDOWN_WAIT_MS = 5_000;
/** Claims double while the endpoint answers within FAST_ANSWER_MS, up to MAX_CLAIM, and fall back to one. */
const MAX_CLAIM = 32;
const FAST_ANSWER_MS = 250;
/** Lease kept in hand beyond an attempt's longest wait, for recording it. */
const RECORD_MARGIN_MS = 5_000;

/** A drain under way in this process. */
interface Drain {
  holder: string;
  /** A job of the endpoint came while it drained: look again before letting go of the lease. */
  poked: boolean;
  done: Promise<void>;
}

/**
 * The endpoints this process is delivering to, each drained by its lease holder.
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
   * after). 'retry': the lease is held by a process of an older version, which does not
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
    let claim = await this.leases.recordAndClaim(lease, [], 1);
    for (;;) {
      claim = await this.sendClaimed(lease, claim);
      if (!claim) return; // the lease expired and another holder has it
      if (this.stopping) return this.leases.release(lease); // what was claimed and not sent is made due by the next holder
      if (!claim.endpoint.enabled) await this.leases.failDue(lease.endpointId, 'the endpoint is disabled');
      if (drain.poked) drain.poked = false;
      else if (await this.leases.releaseUnlessPoked(lease)) return;
      claim = await this.leases.recordAndClaim(lease, [], 1);
    }
  }

  /**
   * Sends the claimed deliveries and those claimed after them, one at a time. While half a claim's
   * worth is still to send, the successes so far are recorded and the next ones claimed (one
   * statement), so the database's round trip overlaps attempts instead of following them; while
   * the endpoint answers at once a claim takes up to MAX_CLAIM deliveries, so a backlog costs a
   * statement per batch, not per delivery. A failure is recorded at once, after what was under way.
   * No attempt starts unless the lease outlasts its longest wait (the lease is renewed first).
   * Returns the last claim with what it claimed and did not send (stopping, or the endpoint
   * disabled), or null when the lease is lost.
   */
  private async sendClaimed(lease: Lease, first: Claim | null): Promise<Claim | null> {
    const attemptMs = this.config.webhooks.timeoutSeconds * 1000 + RECORD_MARGIN_MS;
    let claim = first;
    const queue = [...(first?.deliveries ?? [])];
    let sent: Sent[] = [];
    let size = 1;
    let recording: Recording | null = null;
    /** The record under way, once it answered: its claim replaces the last one (null: the lease is lost). */
    const settle = async () => {
      if (!recording) return;
      const next = await recording.done;
      recording = null;
      claim = claim && next;
      queue.push(...(next?.deliveries ?? []));
    };
    for (;;) {
      if (recording?.answered) await settle();
      const sending = claim && claim.endpoint.enabled && !this.stopping;
      const delivery = sending ? queue.shift() : undefined;
      if (!claim || !delivery) {
        if (recording) {
          await settle();
          continue;
        }
        if (!sent.length) return claim && { ...claim, deliveries: queue };
        const recorded = await this.outcomes.record(lease, sent, sending ? size : 0);
        sent = [];
        claim = claim && recorded;
        queue.push(...(claim?.deliveries ?? []));
        continue;
      }
      if (Date.now() + attemptMs > claim.renewedAt + LEASE_SECONDS * 1000) {
        queue.unshift(delivery);
        await settle();
        claim = claim && (await this.outcomes.record(lease, sent, 0));
        sent = [];
        continue;
      }
      if (!recording && queue.length <= size >> 1) {
        recording = new Recording(this.outcomes.record(lease, sent, size));
        sent = [];
      }
      const { endpoint } = claim;
      const startedAt = new Date();
      const result = await this.sender.send(endpoint.url, this.signer.headers(endpoint, delivery), delivery.body);
      sent.push({ endpoint, delivery, startedAt, result });
      size = result.ok && result.durationMs < FAST_ANSWER_MS ? Math.min(size * 2, MAX_CLAIM) : 1;
      if (!result.ok) {
        await settle();
        const recorded = await this.outcomes.record(lease, sent, 0);
        sent = [];
        claim = claim && recorded;
      }
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

/** A record-and-claim statement under way beside the attempts. */
class Recording {
  answered = false;
  readonly done: Promise<Claim | null>;

  constructor(statement: Promise<Claim | null>) {
    this.done = statement.finally(() => (this.answered = true));
    // Awaited by the drain once it is done sending; until then a failure must not count as unhandled.
    this.done.catch(() => undefined);
  }
}
