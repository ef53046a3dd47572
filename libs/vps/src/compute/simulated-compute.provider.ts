import { randomInt } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { AppConfig } from '@app/core';
import { ComputeProvider, ConsoleTarget, InstanceRef, TaskStatus } from './compute-provider';
import { SimulatedVncServers } from './simulated-vnc-servers';
import { SimulatorTasksRepository } from './simulator-tasks.repository';
import type { ActionType, PowerState } from '../vps.types';

const VNC_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789';

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

  async taskStatus(_instance: InstanceRef, taskId: string): Promise<TaskStatus> {
    const task = await this.tasks.find(taskId);
    if (!task) return { state: 'failed', error: { code: 'task_not_found', message: 'The hypervisor has no record of this task.' } };
    return task.done ? { state: 'succeeded' } : { state: 'running' };
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

  pollIntervalMs(): number {
    return this.config.computeTransitionDelayMs;
  }
}

function refOf(instance: InstanceRef): string {
  return instance.providerRef ?? `sim-${instance.serviceId}`;
}
