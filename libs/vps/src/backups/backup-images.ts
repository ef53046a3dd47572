import { Injectable } from '@nestjs/common';
import { ActivityLog, AppConfig, Principal, TransactionRunner } from '@app/core';
import { ImageResponse } from '../images/dto/image.response';
import { SnapshotImages } from './snapshots/snapshot-images';
import { VpsInstancesRepository } from '../instances/vps-instances.repository';
import { BackupImageJob } from './backup-image.job';
import { BackupsService } from './backups.service';

/**
 * A backup turned into a snapshot image of the account: reserved like a snapshot (it
 * counts toward SNAPSHOTS_PER_ACCOUNT and is `creating` at once), filled by BackupImageJob.
 */
@Injectable()
export class BackupImages {
  constructor(
    private readonly backups: BackupsService,
    private readonly snapshots: SnapshotImages,
    private readonly instances: VpsInstancesRepository,
    private readonly tx: TransactionRunner,
    private readonly activity: ActivityLog,
    private readonly job: BackupImageJob,
    private readonly config: AppConfig,
  ) {}

  async create(caller: Principal, serviceId: string, backupId: string, name: string): Promise<ImageResponse> {
    const backup = await this.backups.available(caller.accountId, serviceId, backupId);
    const image = await this.tx.run(async (m) => {
      // A suspended VPS's image would rebuild another VPS, a terminated one's would outlive its backups' deletion.
      await this.backups.lockActive(m, caller.accountId, serviceId, 'an image from a backup needs');
      const facts = await this.instances.guestOf(m, serviceId);
      const reserved = await this.snapshots.reserve(m, caller.accountId, { serviceId, ...facts }, name);
      await this.activity.record(m, {
        accountId: caller.accountId,
        caller,
        action: 'instance.backup_image',
        entity: { type: 'service', id: serviceId },
        details: { backupId, imageId: reserved.id, name: reserved.name },
      });
      await this.job.enqueue(m, { imageId: reserved.id, key: backup.storage_key, sizeBytes: Number(backup.size_bytes) });
      return reserved;
    });
    return ImageResponse.fromRow(image);
  }

  locationOf(image: ImageResponse): string {
    return `${this.config.publicUrl}/api/images/${image.id}`;
  }
}
