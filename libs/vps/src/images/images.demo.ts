import { Injectable } from '@nestjs/common';
import { AppConfig, DemoContext, DemoSeeder } from '@app/core';
import { ImagesRepository, NewImage } from './images.repository';

const DEMO_IMAGES: NewImage[] = [
  {
    slug: 'debian-12',
    name: 'Debian 12 (bookworm)',
    osFamily: 'debian',
    osVersion: '12',
    minDiskGb: 2,
    format: 'qcow2',
    sizeBytes: 338_624_512,
  },
  {
    slug: 'ubuntu-24.04',
    name: 'Ubuntu 24.04 LTS',
    osFamily: 'ubuntu',
    osVersion: '24.04',
    minDiskGb: 4,
    format: 'qcow2',
    sizeBytes: 587_202_560,
  },
  {
    // What POST .../instance/rescue boots (image:add --rescue).
    slug: 'rescue',
    name: 'Rescue system (Debian 12)',
    osFamily: 'debian',
    osVersion: '12',
    minDiskGb: 2,
    format: 'qcow2',
    sizeBytes: 338_624_512,
    rescue: true,
  },
];

/**
 * The simulator's catalogue of images for a first `npm start` (rows only: the simulator keeps no
 * files), added once, before the demo VPSes that use them. With libvirt, operators add real images
 * with image:add instead.
 */
@Injectable()
export class ImagesDemoSeeder extends DemoSeeder {
  readonly order = 190;

  constructor(
    private readonly images: ImagesRepository,
    private readonly config: AppConfig,
  ) {
    super();
  }

  async seed({ manager }: DemoContext): Promise<void> {
    if (this.config.computeProvider !== 'simulator') return;
    for (const image of DEMO_IMAGES) await this.images.insertIfAbsent(manager, image);
  }
}
