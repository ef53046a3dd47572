import { Injectable, Logger } from '@nestjs/common';
import { Problem, TransactionRunner } from '@app/core';
import { computeProblem } from '../compute/compute-problem';
import { instanceRef } from '../compute/compute-provider';
import { VpsInstancesRepository } from '../vps-instances.repository';
import { VpsStates } from '../vps-states';
import type { HostNeed, HostTarget } from './host.entity';
import { HostsRepository } from './hosts.repository';
import { MachineMover } from './machine-mover';

/**
 * The operator's cold move of a stopped VPS to another host of its region (issue 40): the room
 * is held on the new host and the VPS shows `starting` (power actions answer 409) while its
 * machine moves; then the old host's share goes back and the VPS records its new host. A move that
 * fails gives the room back and leaves the VPS stopped where its machine is; run it again to finish.
 */
@Injectable()
export class VpsMoves {
  private readonly logger = new Logger('VpsMoves');

  constructor(
    private readonly tx: TransactionRunner,
    private readonly states: VpsStates,
    private readonly instances: VpsInstancesRepository,
    private readonly hosts: HostsRepository,
    private readonly mover: MachineMover,
  ) {}

  async move(serviceId: string, toName: string): Promise<{ id: string; from: string | null; to: string }> {
    const target = await this.hosts.byName(toName);
    if (!target) throw Problem.notFound('Host');
    const { ref, need, from } = await this.tx.run(async (m) => {
      const vps = await this.states.lockById(m, serviceId);
      if (!vps?.powerState || vps.status === 'terminated') throw Problem.notFound('Service');
      if (vps.powerState !== 'stopped') throw Problem.conflict('invalid_state', 'Only a stopped VPS is moved: stop it first.');
      if (vps.region !== target.region)
        throw Problem.conflict('invalid_state', `Host ${toName} is not in the VPS's region (${vps.region}).`);
      if (vps.host?.id === target.id) throw Problem.conflict('invalid_state', `The VPS is on ${toName} already.`);
      const allocation = await this.hosts.allocationOf(m, serviceId);
      if (!allocation)
        throw Problem.conflict('invalid_state', "Only a VPS placed on a host is moved (not one on its region's configured hypervisor).");
      if (!(await this.hosts.reserve(m, target.id, allocation)))
        throw new Problem(409, 'no_capacity', `Host ${toName} is not enabled or has no room for this VPS.`);
      await this.instances.setPowerState(m, serviceId, 'provisioning');
      return { ref: instanceRef(serviceId, vps), need: allocation as HostNeed, from: vps.host?.name ?? null };
    });
    const to: HostTarget = { id: target.id, name: target.name, uri: target.uri, vncListen: target.vncListen, state: target.state };
    try {
      await this.mover.move(ref, to);
    } catch (err) {
      await this.tx.run(async (m) => {
        await this.hosts.reserve(m, target.id, need, -1);
        await this.instances.setPowerState(m, serviceId, 'stopped');
      });
      throw computeProblem(err);
    }
    await this.tx.run(async (m) => {
      await this.hosts.settleMove(m, serviceId, target.id);
      await this.instances.setPowerState(m, serviceId, 'stopped');
    });
    this.logger.log(`VPS ${serviceId} moved from ${from ?? 'its configured hypervisor'} to ${toName}`);
    return { id: serviceId, from, to: toName };
  }
}
