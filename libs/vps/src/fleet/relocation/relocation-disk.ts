import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import type { Problem } from '@app/core';
import { AccountSshKeys } from '@app/ssh-keys';
import { bootOf, GuestSetup, hostnameOf } from '../../instances/guest-setup';
import { InstanceActionsRepository } from '../../actions/instance-actions.repository';
import { MachineRelocator } from '../../compute/machine-relocator';
import type { GuestFacts } from '../../instances/vps-instances.repository';
import { RelocationRefused } from './relocation-error';
import { PlannedDisk, RelocatedVpsRepository } from './relocated-vps.repository';

/**
 * What the new root disk of a VPS made again elsewhere (an evacuation) is made from: where the
 * region's disks outlive their host (on Ceph), the disk it has, nothing lost; else its
 * latest available backup, with a seed of the instance-id its disk was installed with (cloud-init
 * does not run its first boot again); else its image, as a rebuild would (all of the account's SSH keys, a new instance-id), and
 * the customer's data is lost. A VPS with neither cannot be evacuated (`no_image`).
 */
@Injectable()
export class RelocationDisk {
  constructor(
    private readonly vps: RelocatedVpsRepository,
    private readonly actions: InstanceActionsRepository,
    private readonly guests: GuestSetup,
    private readonly keys: AccountSshKeys,
    private readonly relocator: MachineRelocator,
  ) {}

  async plan(
    m: EntityManager,
    vps: { id: string; accountId: string; name: string; region: string | null },
    facts: GuestFacts,
  ): Promise<PlannedDisk> {
    if (this.relocator.sharedDisks(vps.region)) return { from: 'disk' };
    const hostname = hostnameOf(vps.name, vps.id);
    const backup = await this.vps.latestBackup(m, vps.id);
    if (backup) {
      const sshKeys = (await this.keys.keysFor(m, vps.accountId, 'all')).map((key) => key.publicKey);
      return { from: 'backup', backup, seed: { instanceId: await this.actions.lastInstanceId(m, vps.id), hostname, sshKeys } };
    }
    if (!facts.imageId || !facts.diskGb)
      throw new RelocationRefused('no_image', 'The VPS has no backup and no image on record to rebuild it from.');
    const plan = await this.guests
      .plan(m, vps.accountId, { image: facts.imageId, diskGb: facts.diskGb, sshKeyIds: 'all' })
      .catch((err: Problem) =>
        Promise.reject(new RelocationRefused('no_image', `The VPS has no backup, and its image cannot be used: ${err.detail}`)),
      );
    return { from: 'image', boot: bootOf(plan, `iid-evacuated-${Date.now()}`, hostname), imageName: plan.image.name };
  }
}
