import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { JobQueue } from '@app/core';
import { VolumeBackend } from '../compute/volumes/volume-backend';
import { VolumesRepository } from './volumes.repository';

const EVERY_SECONDS = 600;

/** Deletes the bytes of terminated volumes once their grace period ended (BACKUP_TERMINATED_GRACE_HOURS, as a VPS's backups). */
@Injectable()
export class VolumePurgeJob implements OnModuleInit {
  private readonly logger = new Logger('Volumes');

  constructor(
    private readonly volumes: VolumesRepository,
    private readonly backend: VolumeBackend,
    private readonly jobs: JobQueue,
  ) {}

  onModuleInit(): void {
    this.jobs.every('volume-purge', EVERY_SECONDS, async () => void (await this.run()), { atStart: true });
  }

  /** Each due volume's bytes, then its mark; one the backend could not delete is tried at the next run. */
  async run(): Promise<number> {
    let purged = 0;
    for (const volume of await this.volumes.duePurges()) {
      try {
        await this.backend.remove({ volumeId: volume.id, region: volume.region });
        await this.volumes.markPurged(volume.id);
        purged++;
      } catch (err) {
        this.logger.warn(`Volume ${volume.id} not deleted yet: ${(err as Error).message}`);
      }
    }
    return purged;
  }
}
