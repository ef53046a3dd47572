import { Injectable, Logger } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { AppConfig, Problem } from '@app/core';
import { ImageStore } from '../../compute/image-store';
import type { ImageRow } from '../../images/image.types';
import { ImagesRepository } from '../../images/images.repository';

/** A snapshot's image row from its request to its action's end. */
@Injectable()
export class SnapshotImages {
  private readonly logger = new Logger('Snapshots');

  constructor(
    private readonly images: ImagesRepository,
    private readonly store: ImageStore,
    private readonly config: AppConfig,
  ) {}

  /** In the action's transaction: a `creating` image, unless the account holds SNAPSHOTS_PER_ACCOUNT already (409 quota_exceeded). */
  async reserve(
    m: EntityManager,
    accountId: string,
    source: { serviceId: string; imageId: string | null; diskGb: number | null },
    name: string,
  ): Promise<ImageRow> {
    await this.images.lockAccountSnapshots(m, accountId);
    const max = this.config.snapshotsPerAccount;
    if ((await this.images.countSnapshots(m, accountId)) >= max) {
      throw Problem.conflict('quota_exceeded', `An account can keep at most ${max} snapshots; delete one first.`);
    }
    return this.images.insertSnapshot(m, {
      accountId,
      serviceId: source.serviceId,
      name,
      sourceImageId: source.imageId,
      minDiskGb: source.diskGb ?? 1,
    });
  }

  /** In the outcome's transaction: available with its size, or deleted (sizeBytes null). */
  settle(m: EntityManager, imageId: string, sizeBytes: number | null): Promise<void> {
    return this.images.settleSnapshot(m, imageId, sizeBytes);
  }

  /** After a failed snapshot: whatever the hypervisor kept of it goes too (best effort; the adapter cleans up first). */
  async discardVolume(imageId: string): Promise<void> {
    await this.store
      .remove(imageId)
      .catch((err: Error) => this.logger.warn(`Snapshot ${imageId}: its volume was not removed: ${err.message}`));
  }
}
