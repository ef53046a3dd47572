import { Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { JobQueue } from '@app/core';

/** Background jobs, queued and periodic, run in API server processes only, not in operator commands. */
@Injectable()
export class JobWorkers implements OnApplicationBootstrap {
  constructor(private readonly jobs: JobQueue) {}

  onApplicationBootstrap(): Promise<void> {
    return this.jobs.startWorkers();
  }
}
