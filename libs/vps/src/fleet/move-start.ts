import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { domainEvent, isUniqueViolation, Problem, TransactionRunner } from '@app/core';
import { VpsInstancesRepository } from '../instances/vps-instances.repository';
import { VpsStates } from '../instances/vps-states';
import type { InstanceMoveEvent } from '../vps.events';
import type { HostNeed, HostRow } from '../hosts/host.entity';
import { HostPlacement } from '../hosts/host-placement';
import { MoveNetwork } from './move-network';
import { VpsMoveJob } from './vps-move.job';
import { VpsMovesRepository } from './vps-moves.repository';

export interface MoveBegun {
  moveId: string;
  from: string;
  to: string;
}

/**
 * Begins a move in one transaction under the service's row lock: the room is held on
 * the new host (the one named, or the best other enabled host of the region by placement's
 * ranking), the SSH port leased there, the VPS shows `provisioning` (power actions answer 409),
 * and the move's record and job are written. A running VPS (`stopRunning`) is stopped by the job;
 * its customer is told now.
 */
@Injectable()
export class MoveStart {
  constructor(
    private readonly tx: TransactionRunner,
    private readonly states: VpsStates,
    private readonly instances: VpsInstancesRepository,
    private readonly placement: HostPlacement,
    private readonly moves: VpsMovesRepository,
    private readonly network: MoveNetwork,
    private readonly job: VpsMoveJob,
  ) {}

  /** `target` null: the best other host of the region. */
  async begin(serviceId: string, target: HostRow | null, stopRunning: boolean): Promise<MoveBegun> {
    const begun = await this.tx
      .run(async (m, publish) => {
        const vps = await this.states.lockById(m, serviceId);
        if (!vps?.powerState || vps.status === 'terminated') throw Problem.notFound('Service');
        const wasRunning = vps.powerState === 'running';
        if (vps.powerState !== 'stopped' && !(wasRunning && stopRunning))
          throw Problem.conflict(
            'invalid_state',
            wasRunning || !stopRunning
              ? 'Only a stopped VPS is moved: stop it first.'
              : `The VPS is ${vps.powerState}: it is not moved now.`,
          );
        if (target && vps.region !== target.region)
          throw Problem.conflict('invalid_state', `Host ${target.name} is not in the VPS's region (${vps.region}).`);
        if (target && vps.host?.id === target.id) throw Problem.conflict('invalid_state', `The VPS is on ${target.name} already.`);
        const allocation = await this.placement.allocationOf(m, serviceId);
        if (!allocation || !vps.host)
          throw Problem.conflict('invalid_state', "Only a VPS placed on a host is moved (not one on its region's configured hypervisor).");
        if (await this.moves.inRescue(m, serviceId)) throw Problem.conflict('invalid_state', 'A VPS in rescue mode is not moved.');
        const need: HostNeed = { vcpus: allocation.vcpus, memoryMb: allocation.memoryMb, diskGb: allocation.diskGb };
        const to = await this.hold(m, vps.region ?? '', need, vps.host.id, target);
        const toSshPort = await this.network.lease(m, serviceId, vps.host.id, to.id);
        await this.instances.setPowerState(m, serviceId, 'provisioning');
        const from = { id: vps.host.id, name: vps.host.name };
        const moveId = await this.moves.insert(m, { serviceId, from, to, need, wasRunning, toSshPort });
        await this.job.enqueue(m, moveId);
        if (wasRunning)
          publish(domainEvent<InstanceMoveEvent>('instance.move_started', vps.accountId, { serviceId, serviceName: vps.name, moveId }));
        return { moveId, from: from.name, to: to.name };
      })
      .catch((err: unknown) => {
        if (isUniqueViolation(err, 'vps_moves_one_running_idx'))
          throw Problem.conflict('invalid_state', 'A move of this VPS is under way.');
        throw err;
      });
    this.job.wake();
    return begun;
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
      throw new Problem(409, 'no_capacity', `Host ${target.name} is not enabled or has no room for this VPS.`);
    }
    const chosen = await this.placement.reserveElsewhere(m, region, need, fromHostId);
    if (chosen) return chosen;
    throw new Problem(409, 'no_capacity', `No other enabled host of region ${region} has room for this VPS.`);
  }
}
