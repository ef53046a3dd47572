import { Injectable, Logger } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import {
  ActivityLog,
  AppConfig,
  isUniqueViolation,
  PageQuery,
  Paginated,
  paginated,
  Principal,
  Problem,
  TransactionRunner,
} from '@app/core';
import { ImageResponse } from './dto/image.response';
import { inspectImageFile } from './image-file';
import { ImageStore, PoolMade } from '../compute/image-store';
import type { ImageRow } from './image.types';
import { ImagesRepository } from './images.repository';

const GIB = 1024 ** 3;

export interface AddImage {
  slug: string;
  name: string;
  osFamily: string;
  osVersion: string;
  file: string;
  /** Default: the image's own disk size, rounded up to whole GiB. */
  minDiskGb?: number;
  /** The rescue mode may boot it. */
  rescue?: boolean;
}

@Injectable()
export class ImagesService {
  private readonly logger = new Logger('Images');

  constructor(
    private readonly images: ImagesRepository,
    private readonly store: ImageStore,
    private readonly tx: TransactionRunner,
    private readonly activity: ActivityLog,
    private readonly config: AppConfig,
  ) {}

  /** The slug RESCUE_IMAGE names: the rescue system is hidden from customers, as the images flagged `rescue` are. */
  private get rescueSlug(): string | null {
    return this.config.rescue.image ?? null;
  }

  async list(accountId: string, query: PageQuery): Promise<Paginated<ImageResponse>> {
    const { rows, total } = await this.images.pageForAccount(accountId, this.rescueSlug, query);
    return paginated(rows.map(ImageResponse.fromRow), query, total);
  }

  async get(accountId: string, id: string): Promise<ImageResponse> {
    const row = await this.images.findForAccount(accountId, this.rescueSlug, id);
    if (!row) throw Problem.notFound('Image');
    return ImageResponse.fromRow(row);
  }

  /**
   * Deletes one of the caller's snapshots. A system image is the operator's (403); a snapshot a live
   * VPS's disk is built on (its backing file) or still being made cannot go (409). The row says
   * `deleting` while its volumes are removed, outside any transaction (a hypervisor call must not
   * hold the database); if the hypervisor refuses, it stays `deleting` and a retried delete goes on,
   * or the images' sweep finishes it (finishStaleDeletions).
   */
  async deleteSnapshot(caller: Principal, id: string): Promise<void> {
    const { accountId } = caller;
    const row = await this.tx.run(async (m) => {
      const snapshot = await this.images.lockSnapshot(m, accountId, id);
      if (!snapshot) {
        if (await this.images.findForAccount(accountId, this.rescueSlug, id, m))
          throw new Problem(403, 'forbidden', 'System images belong to the operator; only snapshots can be deleted.');
        throw Problem.notFound('Image');
      }
      if (snapshot.status === 'creating')
        throw Problem.conflict('invalid_state', 'The snapshot is still being made; delete it once its action has ended.');
      const users = await this.images.usedBy(id, m);
      if (users) {
        throw Problem.conflict(
          'invalid_state',
          `The disks of ${users} VPS${users === 1 ? '' : 'es'} are built on this snapshot; rebuild them from another image or terminate them first.`,
        );
      }
      await this.images.markDeleting(m, id);
      return snapshot;
    });
    await this.removeSnapshot(row, caller);
  }

  /**
   * Snapshot deletions left `deleting` for `olderThanSeconds` (a hypervisor refused and nobody asked
   * again, or the process died between its two steps): finished, and recorded as the system's.
   * Returns the ids of those it finished.
   */
  async finishStaleDeletions(olderThanSeconds: number): Promise<string[]> {
    const finished: string[] = [];
    for (const row of await this.images.staleDeleting(olderThanSeconds)) {
      try {
        await this.removeSnapshot(row);
        finished.push(row.id);
      } catch (err) {
        this.logger.warn(`The deletion of snapshot ${row.id} is not finished yet: ${(err as Error).message}`);
      }
    }
    return finished;
  }

  /** Its volumes, then its row; recorded once, by whichever of two deletions at once ends the row. */
  private async removeSnapshot(row: ImageRow, caller?: Principal): Promise<void> {
    await this.store.remove(row.id);
    await this.tx.run(async (m) => {
      if (!(await this.images.markDeleted(m, row.id))) return;
      await this.activity.record(m, {
        accountId: row.account_id!,
        caller,
        action: 'image.delete',
        entity: { type: 'image', id: row.id },
        details: { slug: row.slug, name: row.name },
      });
    });
  }

  /**
   * An available image of the account (a system image or its snapshot) a VPS of `diskGb` can be built from; 400 naming the
   * `field` otherwise, the rescue system included (the same answer as an unknown slug).
   */
  async requireInstallable(
    manager: EntityManager,
    accountId: string,
    slugOrId: string,
    diskGb: number,
    field = 'image',
  ): Promise<ImageRow> {
    const image = await this.images.findAvailable(manager, accountId, this.rescueSlug, slugOrId);
    if (!image)
      throw Problem.invalidInput(`No available image "${slugOrId}"; GET /api/images lists them.`, [{ field, message: 'unknown image' }]);
    if (image.min_disk_gb > diskGb) {
      throw Problem.invalidInput(`Image ${image.slug} needs a disk of at least ${image.min_disk_gb} GB; this VPS has ${diskGb} GB.`, [
        { field, message: 'larger than the disk' },
      ]);
    }
    return image;
  }

  /**
   * Operator: records the image, uploads its file to the hypervisors, then makes it available;
   * `poolMade` is told of each storage pool the upload had to make first.
   */
  async add(input: AddImage, poolMade: (made: PoolMade) => void = () => undefined): Promise<ImageResponse> {
    const facts = await inspectImageFile(input.file).catch((err: NodeJS.ErrnoException) => {
      throw Problem.invalidInput(`Cannot read ${input.file}: ${err.code ?? err.message}`, [{ field: 'file', message: 'unreadable' }]);
    });
    const ownSize = Math.max(1, Math.ceil(facts.virtualBytes / GIB));
    if (input.minDiskGb !== undefined && input.minDiskGb < ownSize) {
      throw Problem.invalidInput(`The image is a ${ownSize} GB disk; --min-disk-gb cannot be smaller.`, [
        { field: 'minDiskGb', message: 'too small' },
      ]);
    }
    let row: ImageRow;
    try {
      row = await this.images.insertUploading({
        ...input,
        minDiskGb: input.minDiskGb ?? ownSize,
        format: facts.format,
        sizeBytes: facts.sizeBytes,
      });
    } catch (err) {
      if (isUniqueViolation(err)) throw Problem.conflict('invalid_state', `An image with slug ${input.slug} exists already.`);
      throw err;
    }
    try {
      for (const made of await this.store.upload(row.id, input.file, facts)) {
        this.logger.log(`Storage pool ${made.pool} made on ${made.hypervisor} (${made.path}, autostarted)`);
        poolMade(made);
      }
    } catch (err) {
      await this.store.remove(row.id).catch(() => undefined);
      await this.images.deleteRow(row.id);
      throw err;
    }
    this.logger.log(`Image ${row.slug} (${facts.format}, ${facts.sizeBytes} bytes) is available`);
    return ImageResponse.fromRow((await this.images.setStatus(row.id, 'available'))!);
  }

  /** Operator: an image no live VPS is built on leaves the list and the pool. */
  async remove(slug: string): Promise<ImageResponse> {
    const row = await this.images.findSystemBySlug(slug);
    if (!row) throw Problem.notFound('Image');
    const users = await this.images.usedBy(row.id);
    if (users) throw Problem.conflict('invalid_state', `Image ${slug} backs the disks of ${users} VPSes; rebuild or terminate them first.`);
    await this.store.remove(row.id);
    return ImageResponse.fromRow((await this.images.setStatus(row.id, 'deleted'))!);
  }
}
