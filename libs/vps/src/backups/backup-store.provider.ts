import type { Provider } from '@nestjs/common';
import { AppConfig } from '@app/core';
import { BackupStore } from './backup-store';
import { LocalBackupStore } from './local-backup-store';

/** BACKUP_S3_ENDPOINT set: the bucket (off the hypervisors); unset: a folder on the API host (the embedded default). */
export const backupStoreProvider: Provider = {
  provide: BackupStore,
  inject: [AppConfig],
  useFactory: async ({ backups }: AppConfig): Promise<BackupStore> => {
    if (!backups.s3) return new LocalBackupStore(backups.localDir);
    // The AWS SDK loads only where backups go to a bucket (as the support area's attachments).
    const { S3BackupStore } = await import('./s3-backup-store');
    return new S3BackupStore(backups.s3, backups.partBytes);
  },
};
