import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { AppConfig, DemoContext, DemoSeeder } from '@app/core';
import { simulatedDisk } from '../compute/simulated-disk';
import { nextBackupSlot } from './backup-slot';
import { backupKey, BackupStore } from './backup-store';
import { BackupsRepository } from './backups.repository';

/** The demo's `web-01` has daily backups and one made yesterday (simulator only, like the demo VPSes). */
@Injectable()
export class BackupsDemoSeeder extends DemoSeeder {
  readonly order = 210;

  constructor(
    private readonly backups: BackupsRepository,
    private readonly store: BackupStore,
    private readonly config: AppConfig,
  ) {
    super();
  }

  async seed({ accountId, manager }: DemoContext): Promise<void> {
    if (this.config.computeProvider !== 'simulator') return;
    const serviceId = await this.backups.demoVps(manager, accountId, 'web-01');
    if (!serviceId) return;
    await this.backups.enable(manager, serviceId, nextBackupSlot(serviceId, new Date(), this.config.backups.window));
    const id = randomUUID();
    const key = backupKey(serviceId, id);
    const sizeBytes = await this.store.put(key, simulatedDisk(serviceId));
    await this.backups.insertDemo(manager, { id, serviceId, accountId, key, sizeBytes });
  }
}
