import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { AccountSshKeys } from '@app/ssh-keys';
import type { RestoredMachine } from '../compute/compute-provider';
import { hostnameOf } from '../instances/guest-setup';
import { InstanceActionsRepository } from '../actions/instance-actions.repository';
import { VpsProvisioningRepository } from '../instances/provisioning/vps-provisioning.repository';
import { VpsInstancesRepository } from '../instances/vps-instances.repository';

/**
 * What a restore makes again if the hypervisor lost it, recorded with the restore (in its
 * transaction): a seed of the instance-id the VPS's disk was installed with, so cloud-init does not
 * run its first boot again on the restored disk (an evacuation's seed does the same), with the
 * account's keys of today, and the size and network the machine is defined with.
 */
@Injectable()
export class RestoredMachines {
  constructor(
    private readonly instances: VpsInstancesRepository,
    private readonly actions: InstanceActionsRepository,
    private readonly provisioning: VpsProvisioningRepository,
    private readonly keys: AccountSshKeys,
  ) {}

  async plan(m: EntityManager, vps: { id: string; accountId: string; name: string }): Promise<RestoredMachine> {
    const { network } = await this.instances.guestOf(m, vps.id);
    const size = await this.provisioning.sizeOf(m, vps.id);
    const sshKeys = (await this.keys.keysFor(m, vps.accountId, 'all')).map((key) => key.publicKey);
    const instanceId = await this.actions.lastInstanceId(m, vps.id);
    return {
      seed: { instanceId, hostname: hostnameOf(vps.name, vps.id), sshKeys },
      network,
      vcpus: size?.vcpus ?? null,
      memoryMb: size?.memoryMb ?? null,
    };
  }
}
