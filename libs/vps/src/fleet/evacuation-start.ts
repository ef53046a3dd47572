import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { TransactionRunner } from '@app/core';
import { VpsInstancesRepository } from '../instances/vps-instances.repository';
import { VpsState, VpsStates } from '../instances/vps-states';
import type { PowerState } from '../vps.types';
import { EvacuatedDisks } from './evacuated-disks';
import { EvacuationTarget } from './evacuation-target';
import type { HostNeed, HostRow, HostTarget } from '../hosts/host.entity';
import { HostsRepository } from '../hosts/hosts.repository';
import { EvacuationFailure } from '../compute/machine-evacuator';
import { EvacuationPlan, VpsEvacuationsRepository } from './vps-evacuations.repository';

/** An evacuation under way: the room held on `to`, the plan recorded, the VPS showing `starting`. */
export interface Claimed {
  evacuationId: string;
  vps: VpsState;
  from: HostTarget;
  to: HostTarget;
  need: HostNeed;
  plan: EvacuationPlan;
}

export type Claim = { kind: 'gone' } | { kind: 'failed'; error: EvacuationFailure } | ({ kind: 'claimed' } & Claimed);

/**
 * The first transaction of one VPS's evacuation, under the service's row lock: a VPS no
 * longer on the host is left alone (evacuated by an earlier run, or terminated); one whose
 * evacuation was under way when a run died goes on toward the same host with the same plan; else
 * room is held on another enabled host of its region and the plan (network, disk source, last
 * known power state) recorded, and the VPS shows `starting` (power actions answer 409) until the end.
 */
@Injectable()
export class EvacuationStart {
  constructor(
    private readonly tx: TransactionRunner,
    private readonly states: VpsStates,
    private readonly instances: VpsInstancesRepository,
    private readonly hosts: HostsRepository,
    private readonly evacuations: VpsEvacuationsRepository,
    private readonly target: EvacuationTarget,
    private readonly disks: EvacuatedDisks,
  ) {}

  async claim(serviceId: string, from: HostRow): Promise<Claim> {
    // Read before the transaction (the embedded database has one connection): where a run that died was going.
    const earlier = await this.evacuations.find(undefined, serviceId, from.id);
    const resumable = earlier?.status === 'running' && earlier.toHostId ? await this.hosts.byName('', earlier.toHostId) : null;
    try {
      return await this.tx.run((m) => this.claimIn(m, serviceId, from, resumable));
    } catch (err) {
      if (!(err instanceof EvacuationFailure)) throw err;
      await this.tx.run((m) => this.evacuations.fail(m, serviceId, from.id, err));
      return { kind: 'failed', error: err };
    }
  }

  private async claimIn(m: EntityManager, serviceId: string, from: HostRow, resumable: HostRow | null): Promise<Claim> {
    const vps = await this.states.lockById(m, serviceId);
    if (!vps?.powerState || vps.status === 'terminated' || vps.host?.id !== from.id) return { kind: 'gone' };
    const need = await this.hosts.allocationOf(m, serviceId);
    if (!need) throw new EvacuationFailure('invalid_state', 'The VPS holds no allocation on the host.');
    const resumed = await this.evacuations.find(m, serviceId, from.id);
    if (resumed?.status === 'running' && resumed.plan && resumable && resumed.toHostId === resumable.id)
      return this.claimed(resumed.id, vps, from, resumable, need, resumed.plan);
    if (await this.evacuations.actionRunning(m, serviceId))
      throw new EvacuationFailure(
        'action_in_progress',
        'An action of the customer is still running on the VPS; run the evacuation again once it ended.',
      );
    if (vps.powerState === 'provisioning') throw new EvacuationFailure('invalid_state', 'The VPS is still being provisioned.');
    const facts = await this.instances.guestOf(m, serviceId);
    const disk = await this.disks.plan(m, vps, facts);
    const to = await this.target.reserve(m, vps.region ?? from.region, need, from.id);
    if (!to) throw new EvacuationFailure('no_capacity', `No enabled host of region ${from.region} has room for this VPS.`);
    const network = await this.target.networkOn(m, serviceId, to.id, facts.network);
    const plan: EvacuationPlan = { network, powerState: lastKnown(vps.powerState), disk };
    const row = await this.evacuations.begin(m, {
      serviceId,
      fromHostId: from.id,
      toHostId: to.id,
      backupId: disk.from === 'backup' ? disk.backup.id : null,
      plan,
    });
    await this.instances.setPowerState(m, serviceId, 'provisioning');
    return this.claimed(row.id, vps, from, to, need, plan);
  }

  private claimed(evacuationId: string, vps: VpsState, from: HostRow, to: HostRow, need: HostNeed, plan: EvacuationPlan): Claim {
    return { kind: 'claimed', evacuationId, vps, from: targetOf(from), to: targetOf(to), need, plan };
  }
}

/** What the VPS is left in on its new host: running if it ran (or was starting), else stopped. */
function lastKnown(state: PowerState): PowerState {
  return state === 'running' || state === 'starting' ? 'running' : 'stopped';
}

const targetOf = (h: HostRow): HostTarget => ({ id: h.id, name: h.name, uri: h.uri, vncListen: h.vncListen, state: h.state });
