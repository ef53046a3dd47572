import { Injectable, OnModuleInit } from '@nestjs/common';
import { JobQueue } from '@app/core';
import { ComputeProvider } from '../../compute/compute-provider';
import { PowerStateSync } from './power-state-sync';

/** Machines stopped (or started) outside the API show their real state at the latest after this. */
export const RECONCILE_INTERVAL_SECONDS = 30;

/** Every 30 s, on one replica, with a hypervisor whose machines change state on their own: compares every settled VPS with its machine. */
@Injectable()
export class PowerStateReconcileJob implements OnModuleInit {
  constructor(
    private readonly sync: PowerStateSync,
    private readonly compute: ComputeProvider,
    private readonly jobs: JobQueue,
  ) {}

  onModuleInit(): void {
    if (!this.compute.observesExternalChanges) return;
    this.jobs.every('power-state-reconcile', RECONCILE_INTERVAL_SECONDS, async () => void (await this.sync.reconcile()));
  }
}
