import { Injectable, Logger } from '@nestjs/common';
import { AppConfig, backoff, JobQueue } from '@app/core';
import { ComputeProvider, ComputeProviderError, instanceRef, StepReporter } from '../compute/compute-provider';
import { InstanceActionHandlers } from './instance-action-handlers';
import type { Outcome } from './action-handler';
import { InstanceActionOutcome } from './instance-action-outcome';
import { InstanceActionsRepository, PendingAction } from './instance-actions.repository';

/** An action the hypervisor has not finished by then fails with `timeout`, also when found at start-up. */
export const ACTION_TIMEOUT_MS = 10 * 60_000;
const FIRST_RETRY_DELAY_MS = 500;
const MAX_RETRY_DELAY_MS = 30_000;
/** A task still running is asked about again no sooner than this. */
const MIN_REPOLL_MS = 50;
/** Where an action stands once a worker has taken it, until its provider names a step of its own. */
const SENDING = { progress: 5, step: 'sending the request to the hypervisor' };

/**
 * Drives one persisted action to its end, as the handler of its `instance-action` job (see
 * InstanceActionJob): sends it to the ComputeProvider once, through the handler registered for its
 * type (InstanceActionHandlers; the action id is the idempotency key),
 * polls its task, then has the outcome recorded. A database or hypervisor that cannot answer now
 * is tried again with backoff; a hypervisor that stays unreachable fails the action after
 * COMPUTE_RETRY_ATTEMPTS tries. A shutdown ends the drive after its current step, and the job is
 * retried by the next process.
 */
@Injectable()
export class InstanceActionRunner {
  private readonly logger = new Logger('InstanceActions');
  /** Actions this process drives. */
  private readonly driving = new Set<string>();

  constructor(
    private readonly actions: InstanceActionsRepository,
    private readonly compute: ComputeProvider,
    private readonly outcome: InstanceActionOutcome,
    private readonly jobs: JobQueue,
    private readonly config: AppConfig,
    private readonly handlers: InstanceActionHandlers,
  ) {}

  drives(id: string): boolean {
    return this.driving.has(id);
  }

  async drive(id: string): Promise<void> {
    if (this.driving.has(id)) return; // a second job for an action this process drives already
    this.driving.add(id);
    try {
      for (let failures = 0; ;) {
        if (this.jobs.stopping) throw new Error(`Instance action ${id} left to the next process (shutdown)`);
        let waitMs: number | null;
        try {
          waitMs = await this.advance(id, failures);
          failures = 0;
        } catch (err) {
          failures++;
          this.logger.warn(`Instance action ${id}: ${(err as Error).message}; retry ${failures}`);
          waitMs = backoff(failures, { base: FIRST_RETRY_DELAY_MS, max: MAX_RETRY_DELAY_MS });
          if (err instanceof ComputeProviderError)
            await this.stepsOf(id)(0, `the hypervisor does not answer; trying again in ${Math.ceil(waitMs / 1000)} s`);
        }
        if (waitMs === null) return;
        await this.jobs.delay(waitMs);
      }
    } finally {
      this.driving.delete(id);
    }
  }

  /** Records each step the action reaches; a step that cannot be written is not worth failing the action for. */
  private stepsOf(id: string): StepReporter {
    return (progress, step) =>
      this.actions
        .setStep(id, progress, step)
        .catch((err: Error) => this.logger.warn(`Instance action ${id}: step not recorded (${err.message})`));
  }

  /**
   * One step: begins the action or asks about its task. Returns how long to wait before the next
   * step, or null once the action has ended; throws to be tried again with backoff.
   */
  private async advance(id: string, failures: number): Promise<number | null> {
    const action = await this.actions.findPending(id);
    if (!action || action.status !== 'running') return null;
    if (action.ageMs > ACTION_TIMEOUT_MS) {
      await this.outcome.record(action, {
        state: 'failed',
        error: { code: 'timeout', message: 'The hypervisor did not finish the action in time.' },
      });
      return null;
    }
    let outcome: Outcome;
    try {
      const steps = this.stepsOf(id);
      if (!action.providerTask) {
        await steps(SENDING.progress, SENDING.step);
        const task = await this.handlers.handlerOf(action.type).begin(action, refOf(action), steps);
        await this.actions.setProviderTask(id, task);
        return this.compute.pollIntervalMs(action.type);
      }
      const status = await this.compute.taskStatus(refOf(action), action.providerTask);
      if (status.state === 'running') {
        if (status.step) await steps(status.progress ?? 0, status.step);
        return Math.max(MIN_REPOLL_MS, this.compute.pollIntervalMs(action.type));
      }
      outcome = status;
    } catch (err) {
      // A hypervisor that stays unreachable fails the action (with its code) after COMPUTE_RETRY_ATTEMPTS tries.
      const lastTry = failures + 1 >= this.config.computeRetryAttempts;
      if (!(err instanceof ComputeProviderError) || (err.retryable && !lastTry)) throw err;
      outcome = { state: 'failed', error: { code: err.code, message: err.message }, operatorDetail: err.operatorDetail };
    }
    await this.outcome.record(action, outcome);
    return null;
  }
}

const refOf = (action: PendingAction) => instanceRef(action.serviceId, action);
