import { Injectable } from '@nestjs/common';
import { runSql, sqlFirst } from '@app/core';
import { DataSource } from 'typeorm';
import type { ActionType } from '../vps.types';

export interface SimulatorTaskRow {
  type: ActionType;
  done: boolean;
}

/** The simulated hypervisor's memory: compute_simulator_tasks, one row a task. */
@Injectable()
export class SimulatorTasksRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** A task that finishes `delayMs` from now; the same id again is a no-op. */
  async insert(id: string, instanceRef: string, type: ActionType, delayMs: number): Promise<void> {
    await runSql(
      this.dataSource,
      `INSERT INTO compute_simulator_tasks (id, instance_ref, type, completes_at)
       VALUES ($1, $2, $3, now() + $4::double precision * interval '1 millisecond')
       ON CONFLICT (id) DO NOTHING`,
      [id, instanceRef, type, delayMs],
    );
  }

  async find(id: string): Promise<SimulatorTaskRow | null> {
    const task = await sqlFirst<SimulatorTaskRow>(
      this.dataSource,
      `SELECT type, completes_at <= now() AS done FROM compute_simulator_tasks WHERE id = $1`,
      [id],
    );
    return task ?? null;
  }

  async findLatestFor(instanceRef: string): Promise<SimulatorTaskRow | null> {
    const task = await sqlFirst<SimulatorTaskRow>(
      this.dataSource,
      `SELECT type, completes_at <= now() AS done FROM compute_simulator_tasks
        WHERE instance_ref = $1 ORDER BY created_at DESC LIMIT 1`,
      [instanceRef],
    );
    return task ?? null;
  }
}
