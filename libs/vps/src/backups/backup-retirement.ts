import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { AppConfig } from '@app/core';
import { BackupsRepository } from './backups.repository';

/** A terminated VPS (in the status change's transaction): no more backups, those made deleted after BACKUP_TERMINATED_GRACE_HOURS. */
@Injectable()
export class BackupRetirement {
  constructor(
    private readonly backups: BackupsRepository,
    private readonly config: AppConfig,
  ) {}

  retire(manager: EntityManager, serviceId: string): Promise<void> {
    return this.backups.retire(manager, serviceId, this.config.backups.terminatedGraceHours);
  }
}
