import { Injectable, OnModuleInit } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { JobQueue } from '@app/core';
import { ACTION_TIMEOUT_MS, InstanceActionRunner } from './instance-action-runner';
import { InstanceActionsRepository } from './instance-actions.repository';

export const INSTANCE_ACTION_JOB = 'instance-action';
/** Running actions no process drives (their replica died) are picked up after this long. */
const ORPHAN_AFTER_SECONDS = 60;
/** Actions driven at once by one process (each job lasts its action's whole run). */
const CONCURRENCY = 100;
/** A shutdown hands a job back; retried by the next process this soon. */
const RETRY_DELAY_SECONDS = 1;

/**
 * A power action or rebuild is an `instance-action` job, queued in the transaction that records the
 * action (so it exists exactly when the action does) and handled by InstanceActionRunner on any API
 * server. Once a minute, and when a process starts, running actions without a driver (a replica
 * that died, a job lost) get a new job; a second job for one action is harmless (the outcome is
 * recorded once, the provider keys the action by its id).
 */
@Injectable()
export class InstanceActionJob implements OnModuleInit {
  constructor(
    private readonly runner: InstanceActionRunner,
    private readonly actions: InstanceActionsRepository,
    private readonly jobs: JobQueue,
  ) {}

  onModuleInit(): void {
    this.jobs.work<{ actionId: string }>(INSTANCE_ACTION_JOB, ({ actionId }) => this.runner.drive(actionId), { concurrency: CONCURRENCY });
    // At start every running action is looked at (a previous process's, left mid-way); later only those older than a minute.
    this.jobs.every(
      'instance-actions-orphans',
      ORPHAN_AFTER_SECONDS,
      ({ atStart }) => this.adoptOrphans(atStart ? 0 : ORPHAN_AFTER_SECONDS),
      {
        atStart: true,
      },
    );
  }

  /** In the transaction that records the action. */
  async enqueue(manager: EntityManager | undefined, actionId: string): Promise<void> {
    await this.jobs.send(
      INSTANCE_ACTION_JOB,
      { actionId },
      { retryLimit: 20, retryDelaySeconds: RETRY_DELAY_SECONDS, expireInSeconds: ACTION_TIMEOUT_MS / 1000 + 300 },
      manager,
    );
  }

  /** Queues a job for each running action at least this old that this process does not drive. */
  async adoptOrphans(olderThanSeconds = ORPHAN_AFTER_SECONDS): Promise<void> {
    const ids = (await this.actions.runningIds(olderThanSeconds * 1000)).filter((id) => !this.runner.drives(id));
    for (const id of ids) await this.enqueue(undefined, id);
  }
}
