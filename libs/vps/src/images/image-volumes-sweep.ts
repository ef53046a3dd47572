import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { JobQueue } from '@app/core';
import { ComputeProvider } from '../compute/compute-provider';
import { ImageStore } from '../compute/image-store';
import { ImagesRepository } from './images.repository';
import { ImagesService } from './images.service';

const PERIOD_SECONDS = 60;
/** A snapshot's deletion still under way after this long is taken as abandoned (longer than any hypervisor call's timeout). */
const STALE_DELETION_SECONDS = 300;

/**
 * The volumes of deleted images, removed from the hypervisors. A failed snapshot's volume is removed
 * right after its action ends, and an image deleted by its owner before its row is; both are best
 * effort (a hypervisor frozen or busy then, a process killed between the commit and the removal,
 * a file libvirt's backup job wrote and its pool did not list yet), and what they left stays until
 * this pass, once a minute on one replica, finds it. A volume of an image this database does not
 * know is another deployment's and is left. A snapshot's deletion left `deleting` is finished first
 * (ImagesService.finishStaleDeletions).
 */
@Injectable()
export class ImageVolumesSweep implements OnModuleInit {
  private readonly logger = new Logger('Images');

  constructor(
    private readonly store: ImageStore,
    private readonly images: ImagesRepository,
    private readonly catalogue: ImagesService,
    private readonly compute: ComputeProvider,
    private readonly jobs: JobQueue,
  ) {}

  onModuleInit(): void {
    if (this.compute.makesMachines) this.jobs.every('image-volumes-sweep', PERIOD_SECONDS, async () => void (await this.sweep()));
  }

  /** The ids of the deleted images whose volumes it removed. */
  async sweep(): Promise<string[]> {
    await this.catalogue.finishStaleDeletions(STALE_DELETION_SECONDS);
    const removed: string[] = [];
    for (const id of await this.images.deletedAmong(await this.store.present())) {
      try {
        await this.store.remove(id);
        removed.push(id);
        this.logger.warn(`The volume of deleted image ${id} was left on a hypervisor; removed`);
      } catch (err) {
        this.logger.error(`The volume of deleted image ${id} was not removed: ${(err as Error).message}`);
      }
    }
    return removed;
  }
}
