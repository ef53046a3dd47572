import type { Provider } from '@nestjs/common';
import { BackupCleanup } from './backup-cleanup';
import { BackupCounters } from './backup-counters';
import { BackupImageJob } from './backup-image.job';
import { BackupImages } from './backup-images';
import { BackupOutcome } from './backup-outcome';
import { BackupRetirement } from './backup-retirement';
import { BackupRunner } from './backup-runner';
import { backupStoreProvider } from './backup-store.provider';
import { BackupsDemoSeeder } from './backups.demo';
import { BackupsJob } from './backups.job';
import { BackupsRepository } from './backups.repository';
import { BackupsService } from './backups.service';
import { BackupRunCommand } from './cli/backup-run.command';
import { RestoreAction } from './restore-action';
import { RestoredMachines } from './restored-machines';

/** Everything of the backups sub-area, registered by VpsModule. */
export const BACKUP_PROVIDERS: Provider[] = [
  backupStoreProvider,
  BackupsRepository,
  BackupsService,
  BackupRunner,
  BackupOutcome,
  BackupCleanup,
  BackupCounters,
  BackupRetirement,
  BackupsJob,
  BackupImages,
  BackupImageJob,
  BackupRunCommand,
  BackupsDemoSeeder,
  RestoredMachines,
  RestoreAction,
];
