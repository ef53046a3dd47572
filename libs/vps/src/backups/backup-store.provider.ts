import type { Provider } from '@nestjs/common';
import { AppConfig } from '@app/core';
import { BackupStore } from './backup-store';
import { LocalBackupStore } from './local-backup-store';
import { S3BackupStore } from './s3-backup-store';

/** BACKUP_S3_ENDPOINT set: the bucket (off the hypervisors); unset: a folder on the API host (the embedded default). */
export const backupStoreProvider: Provider = {
  provide: BackupStore,
  inject: [AppConfig],
  useFactory: ({ backups }: AppConfig): BackupStore =>
    backups.s3 ? new S3BackupStore(backups.s3, backups.partBytes) : new LocalBackupStore(backups.localDir),
};
