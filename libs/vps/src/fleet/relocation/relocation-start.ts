import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { domainEvent, isUniqueViolation, Publish, TransactionRunner } from '@app/core';
import { VpsInstancesRepository } from '../../instances/vps-instances.repository';
import { VpsState, VpsStates } from '../../instances/vps-states';
import type { InstanceMoveEvent } from '../../vps.events';
import type { PowerState } from '../../vps.types';
import type { HostNeed, HostRow } from '../../hosts/host.entity';
import { HostPlacement } from '../../hosts/host-placement';
import { RelocatedVpsRepository, RecreatePlan } from './relocated-vps.repository';
import { RelocationDisk } from './relocation-disk';
import { RelocationRefused } from './relocation-error';
import { RelocationNetwork } from './relocation-network';
import { RelocationJob } from './relocation.job';
import { NewRelocation, VpsRelocationsRepository } from './vps-relocations.repository';

export interface RelocationBegun {
  relocationId: string;
  from: string;
  to: string;
}

/** How a running VPS is moved: kept running (libvirt's live migration) or stopped, copied and started again; null: only a stopped one moves. */
export type RunningMove = 'live' | 'cold' | null;

/**
 * Begins a relocation in one transaction under the service's row lock: the room is held on
 * the new host (the one named, or the best other enabled host of the region by placement's
 * ranking), its SSH port leased there, the VPS shows `provisioning` (power actions answer 409),
 * and the record and its job are written. A copy takes a stopped VPS; a running one is moved live
 * (`live`: it keeps running, its customer is told after) or cold (`cold`: the job stops it, its
 * customer is told now); a machine made again (the old host
 * is dead) takes its latest backup or its image, planned here. Refusals throw RelocationRefused.
 */
@Injectable()
export class RelocationStart {
  constructor(
    private readonly tx: TransactionRunner,
    private readonly states: VpsStates,
    private readonly instances: VpsInstancesRepository,
    private readonly placement: HostPlacement,
    private readonly relocations: VpsRelocationsRepository,
    private readonly vps: RelocatedVpsRepository,
    private readonly network: RelocationNetwork,
    private readonly disk: RelocationDisk,
    private readonly job: RelocationJob,
  ) {}

  /** The disk copied from the old host; `target` null: the best other host of the region. */
  copy(serviceId: string, target: HostRow | null, running: RunningMove): Promise<RelocationBegun> {
    return this.begin(async (m, publish) => {
      const vps = await this.states.lockById(m, serviceId);
      if (!vps?.powerState || vps.status === 'terminated') throw RelocationRefused.notFound('Service');
      const wasRunning = vps.powerState === 'running';
      if (vps.powerState !== 'stopped' && !(wasRunning && running))
        throw refused(
          wasRunning || !running
            ? 'Only a stopped VPS is moved without --live or --stop: stop it first.'
            : `The VPS is ${vps.powerState}: it is not moved now.`,
        );
      if (target && vps.region !== target.region) throw refused(`Host ${target.name} is not in the VPS's region (${vps.region}).`);
      if (target && vps.host?.id === target.id) throw refused(`The VPS is on ${target.name} already.`);
      const allocation = await this.placement.allocationOf(m, serviceId);
      if (!allocation || !vps.host) throw refused("Only a VPS placed on a host is moved (not one on its region's configured hypervisor).");
      if (await this.vps.inRescue(m, serviceId)) throw refused('A VPS in rescue mode is not moved.');
      const need: HostNeed = { vcpus: allocation.vcpus, memoryMb: allocation.memoryMb, diskGb: allocation.diskGb };
      const to = await this.hold(m, vps.region ?? '', need, vps.host.id, target);
      const live = wasRunning && running === 'live';
      const toSshPort = await this.network.lease(m, serviceId, vps.host.id, to.id, live);
      const from = { id: vps.host.id, name: vps.host.name };
      const begun = await this.write(m, { serviceId, source: 'copy', from, to, need, wasRunning, live, toSshPort });
      if (wasRunning && !live)
        publish(
          domainEvent<InstanceMoveEvent>('instance.move_started', vps.accountId, {
            serviceId,
            serviceName: vps.name,
            moveId: begun.relocationId,
          }),
        );
      return begun;
    });
  }

  /**
   * Made again from its latest backup or its image on another enabled host of the region, nothing asked of `from` (it is dead);
   * null when the VPS is no longer recorded there (made again by an earlier run, or terminated).
   */
  recreate(serviceId: string, from: HostRow): Promise<RelocationBegun | null> {
    return this.begin(async (m) => {
      const vps = await this.states.lockById(m, serviceId);
      if (!vps?.powerState || vps.status === 'terminated' || vps.host?.id !== from.id) return null;
      const need = await this.placement.allocationOf(m, serviceId);
      if (!need) throw refused('The VPS holds no allocation on the host.');
      if (await this.vps.actionRunning(m, serviceId))
        throw new RelocationRefused(
          'action_in_progress',
          'An action of the customer is still running on the VPS; run the evacuation again once it ended.',
        );
      if (vps.powerState === 'provisioning') throw refused('The VPS is still being provisioned.');
      const facts = await this.instances.guestOf(m, serviceId);
      const disk = await this.disk.plan(m, vps, facts);
      const to = await this.placement.reserveElsewhere(m, vps.region ?? from.region, need, from.id);
      if (!to) throw new RelocationRefused('no_capacity', `No enabled host of region ${from.region} has room for this VPS.`);
      const network = await this.network.recreated(m, serviceId, to.id, facts.network);
      const plan: RecreatePlan = { network, powerState: lastKnown(vps), disk };
      return this.write(m, {
        serviceId,
        source: disk.from,
        from: { id: from.id, name: from.name },
        to,
        need: { vcpus: need.vcpus, memoryMb: need.memoryMb, diskGb: need.diskGb },
        wasRunning: plan.powerState === 'running',
        toSshPort: network?.mode === 'user' ? network.sshPort : null,
        backupId: disk.from === 'backup' ? disk.backup.id : null,
        plan,
      });
    });
  }

  private async begin<T extends RelocationBegun | null>(work: (m: EntityManager, publish: Publish) => Promise<T>): Promise<T> {
    const begun = await this.tx.run(work).catch((err: unknown) => {
      if (isUniqueViolation(err, 'vps_relocations_one_running_idx')) throw refused('A move of this VPS is under way.');
      throw err;
    });
    return begun;
  }

  /** A live move too: the machine runs throughout, but no action of the customer may begin on it meanwhile. */
  private async write(m: EntityManager, relocation: NewRelocation): Promise<RelocationBegun> {
    await this.instances.setPowerState(m, relocation.serviceId, 'provisioning');
    const relocationId = await this.relocations.insert(m, relocation);
    await this.job.enqueue(m, relocationId);
    return { relocationId, from: relocation.from.name, to: relocation.to.name };
  }

  private async hold(
    m: EntityManager,
    region: string,
    need: HostNeed,
    fromHostId: string,
    target: HostRow | null,
  ): Promise<{ id: string; name: string }> {
    if (target) {
      if (await this.placement.reserveOn(m, target.id, need)) return target;
      throw new RelocationRefused('no_capacity', `Host ${target.name} is not enabled or has no room for this VPS.`);
    }
    const chosen = await this.placement.reserveElsewhere(m, region, need, fromHostId);
    if (chosen) return chosen;
    throw new RelocationRefused('no_capacity', `No other enabled host of region ${region} has room for this VPS.`);
  }
}

const refused = (message: string) => new RelocationRefused('invalid_state', message);

/** What a machine made again is left in: running if it ran (or was starting), else stopped. */
function lastKnown(vps: VpsState): PowerState {
  return vps.powerState === 'running' || vps.powerState === 'starting' ? 'running' : 'stopped';
}
