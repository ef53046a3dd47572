import { Injectable, Logger } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { isUniqueViolation, PageQuery, Paginated, paginated, Problem } from '@app/core';
import { computeProblem } from '../compute/compute-problem';
import { ImageResponse } from './dto/image.response';
import { inspectImageFile } from './image-file';
import { ImageStore } from './image-store';
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
}

@Injectable()
export class ImagesService {
  private readonly logger = new Logger('Images');

  constructor(
    private readonly images: ImagesRepository,
    private readonly store: ImageStore,
  ) {}

  async list(query: PageQuery): Promise<Paginated<ImageResponse>> {
    const { rows, total } = await this.images.page(query);
    return paginated(rows.map(ImageResponse.fromRow), query, total);
  }

  async get(id: string): Promise<ImageResponse> {
    const row = await this.images.findAvailable(id);
    if (!row) throw Problem.notFound('Image');
    return ImageResponse.fromRow(row);
  }

  /** An available image a VPS of `diskGb` can be built from; 400 naming the `field` otherwise. */
  async requireInstallable(manager: EntityManager, slugOrId: string, diskGb: number, field = 'image'): Promise<ImageRow> {
    const image = await this.images.findAvailable(slugOrId, manager);
    if (!image)
      throw Problem.invalidInput(`No available image "${slugOrId}"; GET /api/images lists them.`, [{ field, message: 'unknown image' }]);
    if (image.min_disk_gb > diskGb) {
      throw Problem.invalidInput(`Image ${image.slug} needs a disk of at least ${image.min_disk_gb} GB; this VPS has ${diskGb} GB.`, [
        { field, message: 'larger than the disk' },
      ]);
    }
    return image;
  }

  /** Operator: records the image, uploads its file to the hypervisors, then makes it available. */
  async add(input: AddImage): Promise<ImageResponse> {
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
      await this.store.upload(row.id, input.file, facts);
    } catch (err) {
      await this.store.remove(row.id).catch(() => undefined);
      await this.images.deleteRow(row.id);
      throw computeProblem(err);
    }
    this.logger.log(`Image ${row.slug} (${facts.format}, ${facts.sizeBytes} bytes) is available`);
    return ImageResponse.fromRow((await this.images.setStatus(row.id, 'available'))!);
  }

  /** Operator: an image no live VPS is built on leaves the list and the pool. */
  async remove(slug: string): Promise<ImageResponse> {
    const row = await this.images.findBySlug(slug);
    if (!row) throw Problem.notFound('Image');
    const users = await this.images.usedBy(row.id);
    if (users) throw Problem.conflict('invalid_state', `Image ${slug} backs the disks of ${users} VPSes; rebuild or terminate them first.`);
    await this.store.remove(row.id).catch((err: unknown) => Promise.reject(computeProblem(err)));
    return ImageResponse.fromRow((await this.images.setStatus(row.id, 'deleted'))!);
  }
}
