import { BeforeApplicationShutdown, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { Interval } from '@nestjs/schedule';
import { DataSource } from 'typeorm';
import { domainEvent, InstanceActionFinishedEvent, JobLock, TransactionRunner } from '@app/core';
import { ServicesRepository } from '../services.repository';
import type { ActionType, PowerState } from '../service.types';
import { ComputeProvider, ComputeProviderError, InstanceRef, TaskStatus } from './compute/compute-provider';
import { isTransitional, targetOf } from './power-state-machine';

/** An action the hypervisor has not finished by then fails with `timeout`, also when found at start-up. */
export const ACTION_TIMEOUT_MS = 10 * 60_000;
const MAX_RETRY_DELAY_MS = 30_000;
/** A task still running is asked about again no sooner than this. */
const MIN_REPOLL_MS = 50;
/** Running actions no process is driving (its replica died) are picked up after this long. */
const ORPHAN_AFTER_MS = 60_000;

interface PendingAction {
  id: string;
  serviceId: string;
  type: ActionType;
  status: string;
  fromState: PowerState;
  providerTask: string | null;
  startedAt: Date;
  region: string | null;
  providerRef: string | null;
}

type Outcome = Exclude<TaskStatus, { state: 'running' }>;

/**
 * Drives persisted actions to their end: sends each to the ComputeProvider once (the action id is
 * the idempotency key), polls its task, then records the outcome and the power state in one
 * transaction and emits instance.action_succeeded / instance.action_failed after COMMIT. Only
 * the HTTP server runs it; at start it resumes what a previous process left running.
 */
@Injectable()
export class InstanceActionRunner implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('InstanceActions');
  private readonly timers = new Map<string, NodeJS.Timeout>();
  /** Actions this process drives (scheduled or in a step). */
  private readonly driving = new Set<string>();
  private readonly attempts = new Map<string, number>();
  private readonly inFlight = new Set<Promise<void>>();
  private active = false;

  constructor(
    private readonly dataSource: DataSource,
    private readonly tx: TransactionRunner,
    private readonly compute: ComputeProvider,
    private readonly services: ServicesRepository,
    private readonly adapterHost: HttpAdapterHost,
    private readonly jobs: JobLock,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    // Operator commands run in an application context without HTTP: they leave actions alone.
    if (!this.adapterHost.httpAdapter) return;
    this.active = true;
    await this.resume(0);
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.active = false;
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
    // Steps already under way finish their queries before the pool closes; the rest stays
    // `running` in the database for the next start.
    await Promise.allSettled([...this.inFlight]);
  }

  /** Called after the transaction that recorded the action committed. */
  kick(actionId: string): void {
    this.schedule(actionId, 0);
  }

  /** One replica a round adopts what no process drives (finishing is guarded, so a double adoption is harmless). */
  @Interval('instance-actions-orphans', ORPHAN_AFTER_MS)
  async adoptOrphans(): Promise<void> {
    if (!this.active) return;
    await this.track(this.jobs.runExclusive('instance-actions-orphans', () => this.resume(ORPHAN_AFTER_MS)).then(() => undefined));
  }

  private async resume(olderThanMs: number): Promise<void> {
    const rows: { id: string }[] = await this.dataSource.query(
      `SELECT id FROM instance_actions WHERE status = 'running' AND started_at <= now() - $1::double precision * interval '1 millisecond'`,
      [olderThanMs],
    );
    for (const { id } of rows) if (!this.driving.has(id)) this.schedule(id, 0);
  }

  private schedule(id: string, delayMs: number): void {
    if (!this.active) return;
    this.driving.add(id);
    clearTimeout(this.timers.get(id));
    const timer = setTimeout(() => {
      this.timers.delete(id);
      void this.track(this.step(id));
    }, delayMs);
    timer.unref();
    this.timers.set(id, timer);
  }

  private track(work: Promise<void>): Promise<void> {
    const tracked: Promise<void> = work
      .catch((err: unknown) => this.logger.error(`Instance action work failed: ${(err as Error).message}`))
      .finally(() => this.inFlight.delete(tracked));
    this.inFlight.add(tracked);
    return tracked;
  }

  private async step(id: string): Promise<void> {
    try {
      await this.advance(id);
    } catch (err) {
      // The database or the hypervisor cannot answer now: try again later, with backoff.
      const attempt = (this.attempts.get(id) ?? 0) + 1;
      this.attempts.set(id, attempt);
      this.logger.warn(`Instance action ${id}: ${(err as Error).message}; retry ${attempt}`);
      this.schedule(id, Math.min(MAX_RETRY_DELAY_MS, 250 * 2 ** attempt));
    }
  }

  private async advance(id: string): Promise<void> {
    const action = await this.load(id);
    if (!action || action.status !== 'running') return this.forget(id);
    if (Date.now() - action.startedAt.getTime() > ACTION_TIMEOUT_MS) {
      return this.finish(action, { state: 'failed', error: { code: 'timeout', message: 'The hypervisor did not finish the action in time.' } });
    }
    const ref = refOf(action);
    let outcome: Outcome;
    try {
      if (!action.providerTask) {
        const task = await this.compute.powerAction(ref, action.type, action.id);
        await this.dataSource.query(`UPDATE instance_actions SET provider_task = $2 WHERE id = $1 AND status = 'running'`, [id, task]);
        this.attempts.delete(id);
        return this.schedule(id, this.compute.pollIntervalMs(action.type));
      }
      const status = await this.compute.taskStatus(ref, action.providerTask);
      this.attempts.delete(id);
      if (status.state === 'running') return this.schedule(id, Math.max(MIN_REPOLL_MS, this.compute.pollIntervalMs(action.type)));
      outcome = status;
    } catch (err) {
      if (!(err instanceof ComputeProviderError) || err.retryable) throw err;
      outcome = { state: 'failed', error: { code: err.code, message: err.message } };
    }
    await this.finish(action, outcome);
  }

  private async load(id: string): Promise<PendingAction | undefined> {
    const [row]: PendingAction[] = await this.dataSource.query(
      `SELECT a.id, a.service_id AS "serviceId", a.type, a.status, a.from_state AS "fromState", a.provider_task AS "providerTask",
              a.started_at AS "startedAt", i.region, i.provider_ref AS "providerRef"
         FROM instance_actions a LEFT JOIN vps_instances i ON i.service_id = a.service_id
        WHERE a.id = $1`,
      [id],
    );
    return row ? { ...row, startedAt: new Date(row.startedAt) } : undefined;
  }

  private async finish(action: PendingAction, outcome: Outcome): Promise<void> {
    const reported = await this.compute.powerState(refOf(action)).catch(() => null);
    const fallback = outcome.state === 'succeeded' ? targetOf(action.type) : action.fromState;
    const powerState = reported && !isTransitional(reported) ? reported : fallback;
    const error = outcome.state === 'failed' ? { code: outcome.error.code.slice(0, 64), message: outcome.error.message.slice(0, 500) } : null;

    await this.tx.run(async (m, publish) => {
      // Same lock order as a new request: the service row first.
      const service = await this.services.lockById(m, action.serviceId);
      if (!service) return;
      const finished: unknown[] = await m.query(
        `WITH done AS (
           UPDATE instance_actions SET status = $2, finished_at = now(), error_code = $3, error_message = $4
            WHERE id = $1 AND status = 'running' RETURNING id
         ) SELECT id FROM done`,
        [action.id, outcome.state, error?.code ?? null, error?.message ?? null],
      );
      if (!finished.length) return; // another replica recorded it first
      await m.query(`UPDATE vps_instances SET power_state = $2, updated_at = now() WHERE service_id = $1`, [action.serviceId, powerState]);
      publish(
        domainEvent<InstanceActionFinishedEvent>(outcome.state === 'succeeded' ? 'instance.action_succeeded' : 'instance.action_failed', service.accountId, {
          serviceId: action.serviceId,
          serviceName: service.name,
          actionId: action.id,
          type: action.type,
          error,
        }),
      );
    });
    this.forget(action.id);
  }

  private forget(id: string): void {
    this.driving.delete(id);
    this.attempts.delete(id);
  }
}

function refOf(action: PendingAction): InstanceRef {
  return { serviceId: action.serviceId, providerRef: action.providerRef, region: action.region ?? '' };
}
