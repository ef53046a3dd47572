import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { JobQueue } from '@app/core';
import { BlobStorage } from '../blob-storage/blob-storage';
import { UNREFERENCED_GRACE_MS } from '../support.types';
import { AttachmentsRepository } from './attachments.repository';

/** Every ten minutes, on one replica: uploads no message uses go, one hour after their upload URL expired. */
@Injectable()
export class AttachmentsCleanupJob implements OnModuleInit {
  private readonly logger = new Logger('Attachments');

  constructor(
    private readonly attachments: AttachmentsRepository,
    private readonly storage: BlobStorage,
    private readonly jobs: JobQueue,
  ) {}

  onModuleInit(): void {
    this.jobs.every('attachments-cleanup', 10 * 60, async () => void (await this.purgeUnreferenced()));
  }

  /** How many uploads were found to delete (a failed one is logged and tried again next time). */
  async purgeUnreferenced(now = new Date()): Promise<number> {
    const cutoff = new Date(now.getTime() - UNREFERENCED_GRACE_MS);
    const rows = await this.attachments.unreferencedBefore(cutoff, 500);
    for (const row of rows) {
      try {
        await this.storage.delete(row.storageKey);
        await this.attachments.deleteUnreferenced(row.id);
      } catch (err) {
        this.logger.warn(`Could not delete upload ${row.id}: ${(err as Error).message}`);
      }
    }
    return rows.length;
  }
}
