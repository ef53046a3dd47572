import { Injectable, Logger } from '@nestjs/common';
import { ComputeProvider, instanceRef } from '../compute/compute-provider';
import { ImageStore } from '../compute/image-store';
import { BackupStore } from './backup-store';
import { BackupLeftover, BackupsRepository } from './backups.repository';

/** Rows deleted per pass of the periodic job. */
const DELETE_BATCH = 50;

/**
 * What backups leave behind goes: the objects of expired or terminated VPSes' backups, and what a
 * backup interrupted by a dying process left (its incomplete upload, the hypervisor's copy).
 * Each step is safe to repeat: a row is deleted only after its object is.
 */
@Injectable()
export class BackupCleanup {
  private readonly logger = new Logger('Backups');

  constructor(
    private readonly backups: BackupsRepository,
    private readonly store: BackupStore,
    private readonly compute: ComputeProvider,
    private readonly hypervisorVolumes: ImageStore,
  ) {}

  /**
   * Deletes the objects, then the rows, of backups whose time has come, and the objects of backups
   * whose rows went with their account; one the store refuses is tried next pass.
   */
  async deleteDue(): Promise<number> {
    let deleted = 0;
    for (const backup of await this.backups.dueForDeletion(DELETE_BATCH)) {
      if (await this.removeObject(backup)) {
        await this.backups.delete(backup.id);
        deleted++;
      }
    }
    for (const key of await this.backups.orphans(DELETE_BATCH)) {
      if (await this.removeObject({ id: key, key })) {
        await this.backups.forgetOrphan(key);
        deleted++;
      }
    }
    return deleted;
  }

  /**
   * The hypervisor copies (`img-<backup id>`) of backups that ended but whose copy stayed: its
   * removal failed (a hypervisor frozen or busy) or came before the copy's file was listed. The
   * ImageStore lists every image-named volume of the hypervisors, so it names them too.
   */
  async releaseLeftCopies(): Promise<number> {
    let released = 0;
    for (const backup of await this.backups.endedAmong(await this.hypervisorVolumes.present())) {
      try {
        await this.compute.releaseExport(instanceRef(backup.serviceId, backup), backup.id);
        released++;
        this.logger.warn(`Backup ${backup.id}: the hypervisor's copy was left after the backup ended; removed`);
      } catch (err) {
        this.logger.warn(`Backup ${backup.id}: hypervisor copy not removed: ${(err as Error).message}`);
      }
    }
    return released;
  }

  /** After a process died mid-backup: its incomplete upload aborted, the hypervisor's copy removed (best effort). */
  async abandon(backup: BackupLeftover): Promise<void> {
    await this.store.abandon(backup.key).catch((err: Error) => this.logger.warn(`Backup ${backup.id}: upload not cleaned: ${err.message}`));
    if (backup.region !== null || backup.providerRef !== null) {
      await this.compute
        .releaseExport(instanceRef(backup.serviceId, backup), backup.id)
        .catch((err: Error) => this.logger.warn(`Backup ${backup.id}: hypervisor copy not removed: ${err.message}`));
    }
  }

  private async removeObject(backup: Pick<BackupLeftover, 'id' | 'key'>): Promise<boolean> {
    try {
      await this.store.abandon(backup.key);
      return true;
    } catch (err) {
      this.logger.warn(`Backup ${backup.id}: object not deleted yet: ${(err as Error).message}`);
      return false;
    }
  }
}
