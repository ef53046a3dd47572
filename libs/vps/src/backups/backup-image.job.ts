import { createWriteStream } from 'node:fs';
import { chmod, mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { AppConfig, JobQueue, TransactionRunner } from '@app/core';
import { ImageStore } from '../compute/image-store';
import { SnapshotImages } from './snapshots/snapshot-images';
import { BackupStore } from './backup-store';

const BACKUP_IMAGE_JOB = 'vps-backup-image';

interface BackupImageWork {
  imageId: string;
  key: string;
  sizeBytes: number;
}

/**
 * Fills a snapshot image from a backup: the backup streamed from the store to a temporary file on
 * the API host, uploaded as the image's volume (as `image:add` does), then the image available; a
 * failure deletes the image, as a failed snapshot does.
 */
@Injectable()
export class BackupImageJob implements OnModuleInit {
  private readonly logger = new Logger('Backups');

  constructor(
    private readonly store: BackupStore,
    private readonly images: ImageStore,
    private readonly snapshots: SnapshotImages,
    private readonly tx: TransactionRunner,
    private readonly jobs: JobQueue,
    private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    this.jobs.work<BackupImageWork>(BACKUP_IMAGE_JOB, (work) => this.fill(work), { concurrency: 2 });
  }

  /** In the transaction that reserves the image. */
  async enqueue(m: EntityManager, work: BackupImageWork): Promise<void> {
    await this.jobs.send(BACKUP_IMAGE_JOB, work, { retryLimit: 0 }, m);
  }

  private async fill({ imageId, key, sizeBytes }: BackupImageWork): Promise<void> {
    const dir = join(this.config.dataDir, 'tmp');
    const file = join(dir, `backup-image-${imageId}.qcow2`);
    try {
      // A customer's disk: the API's user's alone (the folder may predate this rule).
      await mkdir(dir, { recursive: true, mode: 0o700 });
      await chmod(dir, 0o700);
      await pipeline(await this.store.get(key), createWriteStream(file, { mode: 0o600 }));
      await this.images.upload(imageId, file, { format: 'qcow2', sizeBytes });
      await this.tx.run((m) => this.snapshots.settle(m, imageId, sizeBytes));
    } catch (err) {
      this.logger.warn(`Image ${imageId} from backup ${key}: ${(err as Error).message}`);
      await this.tx.run((m) => this.snapshots.settle(m, imageId, null));
      await this.snapshots.discardVolume(imageId);
    } finally {
      await rm(file, { force: true });
    }
  }
}
