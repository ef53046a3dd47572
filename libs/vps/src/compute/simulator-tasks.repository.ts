import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { runSql, sqlFirst } from '@app/core';
import { DataSource } from 'typeorm';
import type { ActionType } from '../vps.types';

export interface SimulatorTaskRow {
  type: ActionType;
  done: boolean;
  /** A snapshot's bytes; null for other tasks. */
  size_bytes: string | null;
  /** How much of its time the task has had, 0-1. */
  elapsed: number;
}

const TASK_COLUMNS = `type, completes_at <= now() AS done, size_bytes,
  coalesce(LEAST(1, GREATEST(0, extract(epoch FROM now() - created_at) / NULLIF(extract(epoch FROM completes_at - created_at), 0))), 1)::float8 AS elapsed`;

/** The simulated hypervisor's memory: compute_simulator_tasks, one row a task. */
@Injectable()
export class SimulatorTasksRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** A task that finishes `delayMs` from now; the same id again is a no-op. */
  async insert(id: string, instanceRef: string, type: ActionType, delayMs: number, sizeBytes: number | null = null): Promise<void> {
    await runSql(
      this.dataSource,
      `INSERT INTO compute_simulator_tasks (id, instance_ref, type, completes_at, size_bytes)
       VALUES ($1, $2, $3, now() + $4::double precision * interval '1 millisecond', $5)
       ON CONFLICT (id) DO NOTHING`,
      [id, instanceRef, type, delayMs, sizeBytes],
    );
  }

  /** That root's password of the machine was set now (the simulator keeps the fact, never the password). */
  async recordPasswordSet(instanceRef: string): Promise<void> {
    await runSql(
      this.dataSource,
      `INSERT INTO compute_simulator_tasks (id, instance_ref, type, completes_at) VALUES ($1, $2, 'password', now())`,
      [`password-${randomUUID()}`, instanceRef],
    );
  }

  async find(id: string): Promise<SimulatorTaskRow | null> {
    const task = await sqlFirst<SimulatorTaskRow>(this.dataSource, `SELECT ${TASK_COLUMNS} FROM compute_simulator_tasks WHERE id = $1`, [
      id,
    ]);
    return task ?? null;
  }

  /** The latest task that changes the power state (a snapshot or a password does not). */
  async findLatestFor(instanceRef: string): Promise<SimulatorTaskRow | null> {
    const task = await sqlFirst<SimulatorTaskRow>(
      this.dataSource,
      `SELECT ${TASK_COLUMNS} FROM compute_simulator_tasks
        WHERE instance_ref = $1 AND type NOT IN ('snapshot', 'password') ORDER BY created_at DESC LIMIT 1`,
      [instanceRef],
    );
    return task ?? null;
  }
}
