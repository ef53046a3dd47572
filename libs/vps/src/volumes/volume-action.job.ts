import { Injectable, OnModuleInit } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { JobQueue } from '@app/core';
import { VolumeActionRunner } from './volume-action-runner';
import { VolumesRepository } from './volumes.repository';

export const VOLUME_ACTION_JOB = 'volume-action';
const ORPHAN_AFTER_SECONDS = 60;

/**
 * An attach, detach or resize is a `volume-action` job, queued in the transaction that records the
 * action; running actions no process drives (a replica that died) get a new job once a minute and
 * when a process starts. A second job for one action is harmless: its end is recorded once.
 */
@Injectable()
export class VolumeActionJob implements OnModuleInit {
  constructor(
    private readonly runner: VolumeActionRunner,
    private readonly volumes: VolumesRepository,
    private readonly jobs: JobQueue,
  ) {}

  onModuleInit(): void {
    this.jobs.work<{ actionId: string }>(VOLUME_ACTION_JOB, ({ actionId }) => this.runner.drive(actionId), { concurrency: 10 });
    this.jobs.every(
      'volume-actions-orphans',
      ORPHAN_AFTER_SECONDS,
      ({ atStart }) => this.adoptOrphans(atStart ? 0 : ORPHAN_AFTER_SECONDS),
      {
        atStart: true,
      },
    );
  }

  async enqueue(manager: EntityManager | undefined, actionId: string): Promise<void> {
    await this.jobs.send(VOLUME_ACTION_JOB, { actionId }, { retryLimit: 20, retryDelaySeconds: 1, expireInSeconds: 600 }, manager);
  }

  async adoptOrphans(olderThanSeconds = ORPHAN_AFTER_SECONDS): Promise<void> {
    const ids = (await this.volumes.runningActionIds(olderThanSeconds * 1000)).filter((id) => !this.runner.drives(id));
    for (const id of ids) await this.enqueue(undefined, id);
  }
}
