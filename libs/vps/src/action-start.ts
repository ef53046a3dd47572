import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { ActivityLog, Principal, Problem } from '@app/core';
import { RebuildInstanceRequest } from './dto/rebuild-instance.request';
import { bootOf, GuestSetup, hostnameOf } from './guest-setup';
import { ActionRow, InstanceActionsRepository, RebuildParams } from './instance-actions.repository';
import { planAction } from './power-state-machine';
import { VpsInstancesRepository } from './vps-instances.repository';
import type { VpsState } from './vps-states';
import type { ActionType, PowerState } from './vps.types';

/**
 * The decision and the writes of a power action, inside the caller's transaction that holds the
 * service row lock: the action recorded as running, the transitional power state, its activity entry.
 */
@Injectable()
export class ActionStart {
  constructor(
    private readonly actions: InstanceActionsRepository,
    private readonly instances: VpsInstancesRepository,
    private readonly guests: GuestSetup,
    private readonly activity: ActivityLog,
  ) {}

  async begin(
    m: EntityManager,
    caller: Principal,
    service: VpsState & { powerState: PowerState },
    type: ActionType,
    rebuild?: RebuildInstanceRequest,
  ): Promise<ActionRow> {
    const { accountId } = caller;
    const serviceId = service.id;
    // The request's own faults (an unknown image, another account's key) come before the machine's state.
    const params = rebuild ? await this.rebuildParams(m, accountId, serviceId, service.name, rebuild) : null;
    const actionRunning = await this.actions.hasRunning(m, serviceId);
    const plan = planAction({ serviceStatus: service.status, powerState: service.powerState, actionRunning }, type);
    if (!plan.ok) throw Problem.conflict(plan.code, plan.detail);
    const action = await this.actions.insertRunning(m, serviceId, type, service.powerState, params?.recorded);
    await this.instances.setPowerState(m, serviceId, plan.transitional);
    if (params) await this.instances.setImage(m, serviceId, params.recorded.boot.imageId);
    await this.activity.record(m, {
      accountId,
      caller,
      action: `instance.${type}`,
      entity: { type: 'service', id: serviceId },
      details: { actionId: action.id, ...params?.details },
    });
    return action;
  }

  private async rebuildParams(
    m: EntityManager,
    accountId: string,
    serviceId: string,
    serviceName: string,
    input: RebuildInstanceRequest,
  ): Promise<{ recorded: RebuildParams; details: Record<string, unknown> }> {
    const facts = await this.instances.guestOf(m, serviceId);
    if (!facts.diskGb) throw Problem.conflict('invalid_state', 'This VPS has no disk size on record; ask support to rebuild it.');
    const guest = await this.guests.plan(m, accountId, { image: input.image, diskGb: facts.diskGb, sshKeyIds: input.sshKeyIds ?? 'all' });
    return {
      // The seed's instance-id is the action's own id, set when it runs.
      recorded: { boot: bootOf(guest, '', hostnameOf(serviceName, serviceId)), network: facts.network },
      details: { image: guest.image.slug, sshKeyIds: guest.sshKeyIds },
    };
  }
}
