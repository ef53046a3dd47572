import { Injectable } from '@nestjs/common';
import { ActivityLog, domainEvent, TransactionRunner } from '@app/core';
import { VpsInstancesRepository } from '../instances/vps-instances.repository';
import type { InstanceEvacuatedEvent } from '../vps.events';
import type { Claimed } from './evacuation-start';
import { NetworkLeasesRepository } from '../instances/network/network-leases.repository';
import { sshScope } from './move-network';
import { HostsRepository } from '../hosts/hosts.repository';
import { EvacuationFailure } from '../compute/machine-evacuator';
import { VpsEvacuationsRepository } from './vps-evacuations.repository';

/**
 * The last transaction of one VPS's evacuation. Made: the old host's share goes back,
 * the allocation, the VPS record and its SSH port lease point at the new host, the VPS shows the
 * state it had, `instance.evacuate` is recorded and the customer is told (notification and mail)
 * whether it was restored from a backup or rebuilt from its image. Failed: the room held on the
 * new host and its lease go back, the VPS stays recorded on the dead host in its last known state.
 */
@Injectable()
export class EvacuationEnd {
  constructor(
    private readonly tx: TransactionRunner,
    private readonly hosts: HostsRepository,
    private readonly instances: VpsInstancesRepository,
    private readonly evacuations: VpsEvacuationsRepository,
    private readonly leases: NetworkLeasesRepository,
    private readonly activity: ActivityLog,
  ) {}

  async made(c: Claimed): Promise<'restored' | 'rebuilt'> {
    const outcome = c.plan.disk.from === 'backup' ? 'restored' : 'rebuilt';
    const { disk } = c.plan;
    const payload: InstanceEvacuatedEvent['payload'] = {
      serviceId: c.vps.id,
      serviceName: c.vps.name,
      outcome,
      backupId: disk.from === 'backup' ? disk.backup.id : null,
      backupAt: disk.from === 'backup' ? disk.backup.createdAt : null,
      image: disk.from === 'image' ? disk.imageName : null,
      powerState: c.plan.powerState,
    };
    await this.tx.run(async (m, publish) => {
      await this.hosts.settleMove(m, c.vps.id, c.to.id);
      if (c.plan.network?.mode === 'user') await this.leases.releaseScope(m, c.vps.id, sshScope(c.from.id));
      await this.evacuations.settleInstance(m, c.vps.id, c.plan.network, c.plan.powerState);
      await this.evacuations.finish(m, c.evacuationId, outcome);
      await this.activity.record(m, {
        accountId: c.vps.accountId,
        action: 'instance.evacuate',
        entity: { type: 'service', id: c.vps.id },
        actor: { type: 'system', id: null, name: null },
        details: { outcome, backupId: payload.backupId, backupAt: payload.backupAt, image: payload.image },
      });
      publish(domainEvent<InstanceEvacuatedEvent>('instance.evacuated', c.vps.accountId, payload));
    });
    return outcome;
  }

  async failed(c: Claimed, error: EvacuationFailure): Promise<void> {
    await this.tx.run(async (m) => {
      await this.hosts.reserve(m, c.to.id, c.need, -1);
      await this.leases.releaseScope(m, c.vps.id, sshScope(c.to.id));
      await this.instances.setPowerState(m, c.vps.id, c.plan.powerState);
      await this.evacuations.fail(m, c.vps.id, c.from.id, error);
    });
  }
}
