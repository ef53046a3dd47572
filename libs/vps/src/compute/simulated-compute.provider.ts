import { randomInt } from 'node:crypto';
import type { Readable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { Injectable } from '@nestjs/common';
import { AppConfig } from '@app/core';
import {
  ComputeProvider,
  ComputeProviderError,
  ConsoleTarget,
  DiskExport,
  InstanceRef,
  NO_STEPS,
  RestoredMachine,
  StepReporter,
  TaskStatus,
  TaskStep,
} from './compute-provider';
import { simulatedDisk } from './simulated-disk';
import { SimulatedVncServers } from './simulated-vnc/simulated-vnc-servers';
import { SimulatorTasksRepository } from './simulator-tasks.repository';
import type { ActionType, PowerState } from '../vps.types';

const VNC_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789';
/**
 * What a simulated task says it does: its first half's step and, for the tasks that boot the
 * machine afterwards, its second half's; progress follows the task's time.
 */
const SIMULATED_STEPS: Record<ActionType, [string, string?]> = {
  start: ['starting the server'],
  stop: ['waiting for the guest to shut down'],
  reboot: ['waiting for the guest to shut down', 'starting the server again'],
  rebuild: ['writing the disk from the image', 'starting the server'],
  snapshot: ['copying the disk'],
  restore: ['copying the backup onto the disk', 'starting the server'],
  rescue: ['making the rescue disk', 'starting the rescue system'],
  unrescue: ['powering the rescue system off', 'starting the server'],
};

/** A simulated snapshot holds what a small system with some data would: 300 MB to 1.5 GB. */
const SNAPSHOT_BYTES = { min: 300_000_000, max: 1_500_000_000 };

/**
 * The default adapter: a hypervisor that exists only as rows in compute_simulator_tasks. Each
 * task finishes COMPUTE_TRANSITION_DELAY_MS after it was accepted, so a restart neither loses nor
 * repeats one, and the same idempotency key never makes a second task.
 */
@Injectable()
export class SimulatedComputeProvider extends ComputeProvider {
  constructor(
    private readonly tasks: SimulatorTasksRepository,
    private readonly config: AppConfig,
    private readonly displays: SimulatedVncServers,
  ) {
    super();
  }

  async powerAction(instance: InstanceRef, operation: ActionType, idempotencyKey: string): Promise<string> {
    await this.tasks.insert(idempotencyKey, refOf(instance), operation, this.config.computeTransitionDelayMs);
    return idempotencyKey;
  }

  /** A row with the copy's size; the simulated agent freezes no filesystems, so a running machine's copy is crash-consistent. */
  override async snapshotMachine(instance: InstanceRef, _imageId: string, idempotencyKey: string): Promise<string> {
    const size = randomInt(SNAPSHOT_BYTES.min, SNAPSHOT_BYTES.max);
    await this.tasks.insert(idempotencyKey, refOf(instance), 'snapshot', this.config.computeTransitionDelayMs, size);
    const stopped = (await this.powerState(instance)) === 'stopped';
    return `${idempotencyKey}:${stopped ? 'filesystem' : 'crash'}`;
  }

  /** A small stand-in for the disk's bytes (the simulator keeps no disks), crash-consistent like its snapshots. */
  override async exportDisk(instance: InstanceRef): Promise<DiskExport> {
    const stopped = (await this.powerState(instance)) === 'stopped';
    return {
      stream: simulatedDisk(instance.serviceId, this.config.simulatorDiskBytes),
      consistency: stopped ? 'filesystem' : 'crash',
      release: () => Promise.resolve(),
    };
  }

  /** Reads the backup to its end (a store that cannot give it fails the restore), then boots like a start. */
  override async restoreMachine(
    instance: InstanceRef,
    open: () => Promise<Readable>,
    _sizeBytes: number,
    key: string,
    _machine?: RestoredMachine,
    steps: StepReporter = NO_STEPS,
  ): Promise<string> {
    await steps(10, 'reading the backup');
    const backup = await open();
    await finished(backup.resume());
    await this.tasks.insert(key, refOf(instance), 'restore', this.config.computeTransitionDelayMs);
    return key;
  }

  /** The simulated guest's agent always answers; a machine that is not running has none to ask. */
  override async setRootPassword(instance: InstanceRef): Promise<void> {
    const state = await this.powerState(instance);
    if (state !== null && state !== 'running')
      throw new ComputeProviderError('not_running', `The machine is ${state}; a password is set in the running guest.`);
    await this.tasks.recordPasswordSet(refOf(instance));
  }

  async taskStatus(_instance: InstanceRef, taskId: string): Promise<TaskStatus> {
    const [id, consistency] = taskId.split(':');
    const task = await this.tasks.find(id);
    if (!task) return { state: 'failed', error: { code: 'task_not_found', message: 'The hypervisor has no record of this task.' } };
    if (!task.done) return { state: 'running', ...simulatedStep(task.type, task.elapsed) };
    if (task.type !== 'snapshot') return { state: 'succeeded' };
    return {
      state: 'succeeded',
      result: { sizeBytes: Number(task.size_bytes), consistency: consistency === 'filesystem' ? 'filesystem' : 'crash' },
    };
  }

  async powerState(instance: InstanceRef): Promise<PowerState | null> {
    const task = await this.tasks.findLatestFor(refOf(instance));
    if (!task) return null;
    if (task.type === 'stop') return task.done ? 'stopped' : 'stopping';
    return task.done ? 'running' : 'starting';
  }

  async openConsole(instance: InstanceRef): Promise<ConsoleTarget> {
    // Classic VNC authentication uses at most 8 characters of the password.
    let password = '';
    for (let i = 0; i < 8; i++) password += VNC_ALPHABET[randomInt(VNC_ALPHABET.length)];
    const { host, port } = await this.displays.addPassword(refOf(instance), password, instance.name);
    return { protocol: 'vnc', host, port, password };
  }

  /** At least once a second, so a task made to finish early (a test ends a long one) is seen soon. */
  pollIntervalMs(): number {
    return Math.min(this.config.computeTransitionDelayMs, 1000);
  }
}

/** The step of a task `elapsed` (0-1) of the way through: 10 to 95 percent as its time passes. */
export function simulatedStep(type: ActionType, elapsed: number): TaskStep {
  const [first, second] = SIMULATED_STEPS[type] ?? ['working'];
  return { progress: Math.round(10 + 85 * elapsed), step: second && elapsed >= 0.5 ? second : first };
}

function refOf(instance: InstanceRef): string {
  return instance.providerRef ?? `sim-${instance.serviceId}`;
}
