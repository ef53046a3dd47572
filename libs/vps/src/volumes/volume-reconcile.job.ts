import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { JobQueue } from '@app/core';
import { VolumeBackend } from '../compute/volumes/volume-backend';
import { VolumesRepository } from './volumes.repository';

const EVERY_SECONDS = 3600;

export interface VolumeReconciliation {
  /** Bytes of purged volumes deleted now (a purge that deleted them and crashed before it recorded so is finished the other way round). */
  removed: string[];
  /** Volumes of this deployment that no service records: left in place and reported (a database restored from an older copy must not lose data). */
  unknown: string[];
}

/**
 * Compares what the backend holds with the volumes recorded, hourly and when a process starts. It
 * looks only at the volumes the backend lists as this deployment's (RBD: the deployment mark) and
 * deletes only the bytes of volumes whose purge is recorded; anything it does not know it reports.
 */
@Injectable()
export class VolumeReconcileJob implements OnModuleInit {
  private readonly logger = new Logger('Volumes');

  constructor(
    private readonly volumes: VolumesRepository,
    private readonly backend: VolumeBackend,
    private readonly jobs: JobQueue,
  ) {}

  onModuleInit(): void {
    this.jobs.every('volume-reconcile', EVERY_SECONDS, async () => void (await this.run()), { atStart: true });
  }

  async run(): Promise<VolumeReconciliation> {
    const [listed, recorded] = await Promise.all([this.backend.list(), this.volumes.recorded()]);
    const result: VolumeReconciliation = { removed: [], unknown: [] };
    for (const { ref } of listed) {
      const record = recorded.get(ref.volumeId);
      if (record?.live) continue;
      if (!record) {
        result.unknown.push(ref.volumeId);
        continue;
      }
      await this.backend.remove(ref).then(
        () => result.removed.push(ref.volumeId),
        (err: Error) => this.logger.warn(`Purged volume ${ref.volumeId} not deleted yet: ${err.message}`),
      );
    }
    if (result.unknown.length)
      this.logger.warn(
        `Volumes of this deployment no service records, left in place: ${result.unknown.map((id) => `vol-${id}`).join(', ')}`,
      );
    return result;
  }
}
