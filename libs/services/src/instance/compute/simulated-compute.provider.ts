import { randomInt } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AppConfig } from '@app/core';
import type { ActionType, PowerState } from '../../service.types';
import { ComputeProvider, ConsoleTarget, InstanceRef, TaskStatus } from './compute-provider';
import { SimulatedVncServers } from './simulated-vnc-servers';

const VNC_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789';

interface TaskRow {
  type: ActionType;
  done: boolean;
}

/**
 * The default adapter: a hypervisor that exists only as rows in compute_simulator_tasks. Each
 * task finishes COMPUTE_TRANSITION_DELAY_MS after it was accepted, so a restart neither loses nor
 * repeats one, and the same idempotency key never makes a second task.
 */
@Injectable()
export class SimulatedComputeProvider extends ComputeProvider {
  constructor(
    private readonly dataSource: DataSource,
    private readonly config: AppConfig,
    private readonly displays: SimulatedVncServers,
  ) {
    super();
  }

  async powerAction(instance: InstanceRef, operation: ActionType, idempotencyKey: string): Promise<string> {
    await this.dataSource.query(
      `INSERT INTO compute_simulator_tasks (id, instance_ref, type, completes_at)
       VALUES ($1, $2, $3, now() + $4::double precision * interval '1 millisecond')
       ON CONFLICT (id) DO NOTHING`,
      [idempotencyKey, refOf(instance), operation, this.config.computeTransitionDelayMs],
    );
    return idempotencyKey;
  }

  async taskStatus(_instance: InstanceRef, taskId: string): Promise<TaskStatus> {
    const [task]: TaskRow[] = await this.dataSource.query(
      `SELECT type, completes_at <= now() AS done FROM compute_simulator_tasks WHERE id = $1`,
      [taskId],
    );
    if (!task) return { state: 'failed', error: { code: 'task_not_found', message: 'The hypervisor has no record of this task.' } };
    return task.done ? { state: 'succeeded' } : { state: 'running' };
  }

  async powerState(instance: InstanceRef): Promise<PowerState | null> {
    const [task]: TaskRow[] = await this.dataSource.query(
      `SELECT type, completes_at <= now() AS done FROM compute_simulator_tasks
        WHERE instance_ref = $1 ORDER BY created_at DESC LIMIT 1`,
      [refOf(instance)],
    );
    if (!task) return null;
    if (task.type === 'stop') return task.done ? 'stopped' : 'stopping';
    return task.done ? 'running' : 'starting';
  }

  async openConsole(instance: InstanceRef): Promise<ConsoleTarget> {
    // Classic VNC authentication uses at most 8 characters of the password.
    let password = '';
    for (let i = 0; i < 8; i++) password += VNC_ALPHABET[randomInt(VNC_ALPHABET.length)];
    const { host, port } = await this.displays.addPassword(refOf(instance), password);
    return { protocol: 'vnc', host, port, password };
  }

  pollIntervalMs(): number {
    return this.config.computeTransitionDelayMs;
  }
}

function refOf(instance: InstanceRef): string {
  return instance.providerRef ?? `sim-${instance.serviceId}`;
}
