import { setTimeout as sleep } from 'node:timers/promises';
import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { AppConfig, backoff, holdLease, JobQueue, Problem } from '@app/core';
import { ComputeProvider, ComputeProviderError, InstanceRef, instanceRef } from '../compute/compute-provider';
import { MachineState, VpsInstancesRepository } from '../instances/vps-instances.repository';
import { MachineMover } from '../compute/machine-mover';
import { MoveOutcome } from './move-outcome';
import { MoveWork, VpsMovesRepository } from './vps-moves.repository';

export const MOVE_JOB = 'vps-move';
/** Held while one process works on a move, renewed every third of it while a step (a disk's copy) runs. */
const LEASE_SECONDS = 60;
const RETRY_DELAY_SECONDS = 5;
const MAX_RETRY_DELAY_MS = 60_000;
const RESUME_PERIOD_SECONDS = 15;
/** A running move without a lease and without an attempt this long has lost its job. */
const IDLE_SECONDS = 600;

/**
 * A move of a VPS between hosts as a durable job: queued in the transaction that held
 * the room, run under the move record's lease, retried with backoff (COMPUTE_RETRY_ATTEMPTS tries)
 * and resumed by another process when the one working on it died (a periodic scan re-queues a move
 * whose lease ran out). Every step looks before it acts, so a resumed move goes on where the last
 * one stopped. Once its tries are spent it is rolled back where the machine verifiably is.
 */
@Injectable()
export class VpsMoveJob implements OnModuleInit {
  private readonly logger = new Logger('VpsMoves');

  constructor(
    private readonly moves: VpsMovesRepository,
    private readonly instances: VpsInstancesRepository,
    private readonly compute: ComputeProvider,
    private readonly mover: MachineMover,
    private readonly outcome: MoveOutcome,
    private readonly jobs: JobQueue,
    private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    this.jobs.work<{ moveId: string }>(MOVE_JOB, async (job) => void (await this.run(job.moveId)));
    this.jobs.every('vps-move-resume', RESUME_PERIOD_SECONDS, async () => void (await this.resume()));
  }

  async enqueue(manager: EntityManager | undefined, moveId: string): Promise<void> {
    const retryLimit = this.config.computeRetryAttempts + 4;
    await this.jobs.send(MOVE_JOB, { moveId }, { retryLimit, retryDelaySeconds: RETRY_DELAY_SECONDS, retryBackoff: true }, manager);
  }

  wake(): void {
    this.jobs.wake(MOVE_JOB);
  }

  /** One attempt, if no other process holds the move: 'busy' while another does. Throws when it will be tried again. */
  async run(moveId: string): Promise<'finished' | 'busy'> {
    const held = await holdLease(this.moves, moveId, LEASE_SECONDS, (work) => this.attempt(work));
    if (held.taken) return 'finished';
    return (await this.moves.find(moveId))?.status === 'running' ? 'busy' : 'finished';
  }

  /** Drives a move to its end in this process (the operator's command waits for it), with the queue's backoff. */
  async runToEnd(moveId: string): Promise<void> {
    for (let failures = 0; ;) {
      const result = await this.run(moveId).catch(() => 'retry' as const);
      if (result === 'finished') return;
      if (result === 'retry') failures++;
      await sleep(result === 'busy' ? 1000 : backoff(failures, { base: RETRY_DELAY_SECONDS * 1000, max: MAX_RETRY_DELAY_MS }));
    }
  }

  /** Re-queues the moves no process works on; returns their ids. */
  async resume(): Promise<string[]> {
    const ids = await this.moves.takeAbandoned(IDLE_SECONDS);
    for (const id of ids) await this.enqueue(undefined, id);
    if (ids.length) {
      this.logger.warn(`Resumed ${ids.length} move(s) no process was working on`);
      this.wake();
    }
    return ids;
  }

  private async attempt(work: MoveWork): Promise<void> {
    const machine = await this.instances.machineOf(work.serviceId);
    const settled = machine?.host?.id === work.toHostId;
    if (!machine || work.serviceStatus === 'terminated') return this.outcome.abandoned(work, settled);
    if (work.attempts > this.config.computeRetryAttempts) return this.giveUp(work, machine, work.lastError);
    try {
      await this.forward(work, machine, settled);
    } catch (err) {
      if (retryable(err) && work.attempts < this.config.computeRetryAttempts) {
        this.logger.warn(`Move of ${work.serviceId} to ${work.toHost}, attempt ${work.attempts}: ${(err as Error).message}; retried`);
        throw err;
      }
      await this.giveUp(work, (await this.instances.machineOf(work.serviceId)) ?? machine, (err as Error).message);
    }
  }

  private async forward(work: MoveWork, machine: MachineState, settled: boolean): Promise<void> {
    let ref = instanceRef(work.serviceId, machine);
    if (!settled) {
      const to = await this.moves.target(work.toHostId);
      if (!to) throw new ComputeProviderError('not_found', `Host ${work.toHost} was removed.`);
      if (work.wasRunning) await this.power(ref, 'stop', `move-${work.id}-stop`);
      await this.mover.move(ref, { ...to, sshPort: work.toSshPort });
      await this.outcome.settle(work);
      ref = instanceRef(work.serviceId, (await this.instances.machineOf(work.serviceId))!);
    }
    if (work.wasRunning) await this.power(ref, 'start', `move-${work.id}-start`);
    await this.outcome.succeeded(work);
  }

  /**
   * Tries are spent (or a step was refused): the VPS ends stopped where its machine verifiably is.
   * A host that cannot answer throws, and the move is looked at again later: never undefined on both.
   */
  private async giveUp(work: MoveWork, machine: MachineState, error: string | null): Promise<void> {
    this.logger.error(`Move of ${work.serviceId} to ${work.toHost} gives up after ${work.attempts} attempt(s): ${error}`);
    if (machine.host?.id === work.toHostId) return this.outcome.stoppedThere(work, error);
    const ref = instanceRef(work.serviceId, machine);
    const to = await this.moves.target(work.toHostId);
    if (!to) return this.outcome.rolledBack(work, error);
    const place = await this.mover.locate(ref, to);
    if (place.onOld) {
      if (place.onNew) await this.mover.discard(ref, to);
      return this.outcome.rolledBack(work, error);
    }
    if (place.onNew) {
      await this.outcome.settle(work);
      return this.outcome.stoppedThere(work, error);
    }
    return this.outcome.rolledBack(work, `${error ?? 'failed'}; the machine is on neither host`);
  }

  /** A power action of the compute port, waited for (the stop's timeout and power-off are the provider's own). */
  private async power(ref: InstanceRef, operation: 'start' | 'stop', key: string): Promise<void> {
    const task = await this.compute.powerAction(ref, operation, key);
    for (;;) {
      const status = await this.compute.taskStatus(ref, task);
      if (status.state === 'succeeded') return;
      if (status.state === 'failed') throw new ComputeProviderError(status.error.code, status.error.message, true);
      if (this.jobs.stopping) throw new ComputeProviderError('shutting_down', 'The process is stopping; the move is resumed.', true);
      await this.jobs.delay(this.compute.pollIntervalMs(operation));
    }
  }
}

function retryable(err: unknown): boolean {
  if (err instanceof ComputeProviderError) return err.retryable;
  return !(err instanceof Problem);
}
