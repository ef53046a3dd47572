import { BeforeApplicationShutdown, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { Interval } from '@nestjs/schedule';
import { ActivityLog, AppConfig, domainEvent, JobLock, TransactionRunner } from '@app/core';
import { ServicesRepository } from '../services.repository';
import { ActionNote, ComputeProvider, ComputeProviderError, instanceRef, TaskStatus } from './compute/compute-provider';
import { InstanceActionsRepository, PendingAction } from './instance-actions.repository';
import { isTransitional, targetOf } from './power-state-machine';
import { VpsInstancesRepository } from './vps-instances.repository';
import type { InstanceActionFinishedEvent } from '../services.events';

/** An action the hypervisor has not finished by then fails with `timeout`, also when found at start-up. */
export const ACTION_TIMEOUT_MS = 10 * 60_000;
const MAX_RETRY_DELAY_MS = 30_000;
/** A task still running is asked about again no sooner than this. */
const MIN_REPOLL_MS = 50;
/** Running actions no process is driving (its replica died) are picked up after this long. */
const ORPHAN_AFTER_MS = 60_000;

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
    private readonly actions: InstanceActionsRepository,
    private readonly instances: VpsInstancesRepository,
    private readonly tx: TransactionRunner,
    private readonly compute: ComputeProvider,
    private readonly services: ServicesRepository,
    private readonly adapterHost: HttpAdapterHost,
    private readonly jobs: JobLock,
    private readonly config: AppConfig,
    private readonly activity: ActivityLog,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    // Operator commands run in an application context without HTTP: they leave actions alone.
    if (this.adapterHost.httpAdapter) await this.start();
  }

  /** Begins driving actions, first those a previous process left running. */
  async start(): Promise<void> {
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
    for (const id of await this.actions.runningIds(olderThanMs)) if (!this.driving.has(id)) this.schedule(id, 0);
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
    const action = await this.actions.findPending(id);
    if (!action || action.status !== 'running') return this.forget(id);
    if (Date.now() - action.startedAt.getTime() > ACTION_TIMEOUT_MS) {
      return this.finish(action, {
        state: 'failed',
        error: { code: 'timeout', message: 'The hypervisor did not finish the action in time.' },
      });
    }
    const ref = refOf(action);
    let outcome: Outcome;
    try {
      if (!action.providerTask) {
        const task = await this.begin(action);
        await this.actions.setProviderTask(id, task);
        this.attempts.delete(id);
        return this.schedule(id, this.compute.pollIntervalMs(action.type));
      }
      const status = await this.compute.taskStatus(ref, action.providerTask);
      this.attempts.delete(id);
      if (status.state === 'running') return this.schedule(id, Math.max(MIN_REPOLL_MS, this.compute.pollIntervalMs(action.type)));
      outcome = status;
    } catch (err) {
      if (!(err instanceof ComputeProviderError) || (err.retryable && !this.lastTry(id))) throw err;
      outcome = { state: 'failed', error: { code: err.code, message: err.message } };
    }
    await this.finish(action, outcome);
  }

  private begin(action: PendingAction): Promise<string> {
    const ref = refOf(action);
    if (action.type !== 'rebuild') return this.compute.powerAction(ref, action.type, action.id);
    if (!action.params) throw new ComputeProviderError('invalid_state', 'The rebuild has no image recorded.');
    // A new instance-id per rebuild makes cloud-init run its first-boot modules (keys, host name) again.
    const boot = { ...action.params.boot, seed: { ...action.params.boot.seed, instanceId: `iid-${action.id}` } };
    return this.compute.rebuildMachine(ref, boot, action.params.network, action.id);
  }

  /** A hypervisor that stays unreachable fails the action (with its code) after COMPUTE_RETRY_ATTEMPTS tries. */
  private lastTry(id: string): boolean {
    return (this.attempts.get(id) ?? 0) + 1 >= this.config.computeRetryAttempts;
  }

  private async finish(action: PendingAction, outcome: Outcome): Promise<void> {
    const reported = await this.compute.powerState(refOf(action)).catch(() => null);
    const fallback = outcome.state === 'succeeded' ? targetOf(action.type) : action.fromState;
    const powerState = reported && !isTransitional(reported) ? reported : fallback;
    const error = outcome.state === 'failed' ? clip(outcome.error) : null;
    const notice = outcome.state === 'succeeded' && outcome.notice ? clip(outcome.notice) : null;

    await this.tx.run(async (m, publish) => {
      // Same lock order as a new request: the service row first.
      const service = await this.services.lockById(m, action.serviceId);
      if (!service) return;
      if (!(await this.actions.finish(m, action.id, { status: outcome.state, error, notice }))) return; // another replica recorded it first
      await this.instances.setPowerState(m, action.serviceId, powerState);
      publish(
        domainEvent<InstanceActionFinishedEvent>(
          outcome.state === 'succeeded' ? 'instance.action_succeeded' : 'instance.action_failed',
          service.accountId,
          {
            serviceId: action.serviceId,
            serviceName: service.name,
            actionId: action.id,
            type: action.type,
            error,
          },
        ),
      );
      // The system finished it, even when the runner was kicked from inside the customer's request.
      await this.activity.record(m, {
        accountId: service.accountId,
        action: outcome.state === 'succeeded' ? 'instance.action_succeeded' : 'instance.action_failed',
        entity: { type: 'service', id: action.serviceId },
        status: outcome.state,
        actor: { type: 'system', id: null, name: null },
        details: { actionId: action.id, type: action.type, errorCode: error?.code ?? null, errorMessage: error?.message ?? null },
      });
    });
    this.forget(action.id);
  }

  private forget(id: string): void {
    this.driving.delete(id);
    this.attempts.delete(id);
  }
}

const clip = (note: ActionNote): ActionNote => ({ code: note.code.slice(0, 64), message: note.message.slice(0, 500) });

const refOf = (action: PendingAction) => instanceRef(action.serviceId, action);
