import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { AccountSshKeys } from '@app/ssh-keys';
import { ImagesService } from '../images/images.service';
import type { ImageRow } from '../images/image.types';
import type { GuestBoot } from '../compute/compute-provider';

/** What a VPS is built from: the image, its disk, and the keys cloud-init writes. */
export interface GuestPlan {
  image: ImageRow;
  diskGb: number;
  sshKeys: string[];
  sshKeyIds: string[];
}

/** A service name as a valid host name (an RFC 1123 label): lower case, letters, digits and inner hyphens. */
export function hostnameOf(serviceName: string, serviceId: string): string {
  const label = serviceName
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 63)
    .replace(/-+$/, '');
  return label || `vps-${serviceId.slice(0, 8)}`;
}

/**
 * Checks and gathers what a new or rebuilt VPS is installed with, in the caller's transaction:
 * an available image that fits the disk (400 otherwise) and the account's keys (404 for a key it
 * does not have).
 */
@Injectable()
export class GuestSetup {
  constructor(
    private readonly images: ImagesService,
    private readonly keys: AccountSshKeys,
  ) {}

  async plan(
    manager: EntityManager,
    accountId: string,
    request: { image: string; diskGb: number; sshKeyIds: 'all' | string[] },
  ): Promise<GuestPlan> {
    const image = await this.images.requireInstallable(manager, accountId, request.image, request.diskGb);
    const keys = await this.keys.keysFor(manager, accountId, request.sshKeyIds);
    return {
      image,
      diskGb: request.diskGb,
      sshKeys: keys.map((key) => key.publicKey),
      sshKeyIds: keys.map((key) => key.id),
    };
  }
}

/** The boot of one VPS from a plan; `instanceId` is new for every install (a rebuild's action id). */
export function bootOf(plan: GuestPlan, instanceId: string, hostname: string): GuestBoot {
  return {
    imageId: plan.image.id,
    imageFormat: plan.image.format,
    diskGb: plan.diskGb,
    seed: { instanceId, hostname, sshKeys: plan.sshKeys },
  };
}
