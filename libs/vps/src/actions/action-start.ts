import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { ActivityLog, Principal, Problem } from '@app/core';
import type { ActionInput } from './action-handler';
import { InstanceActionHandlers } from './instance-action-handlers';
import { ActionRow, InstanceActionsRepository } from './instance-actions.repository';
import { planAction } from '../instances/power-state/power-state-machine';
import { VpsInstancesRepository } from '../instances/vps-instances.repository';
import type { VpsState } from '../instances/vps-states';
import type { ActionType, PowerState } from '../vps.types';

/** The VPS's host stopped answering; nothing is asked of it until it answers again. */
export function hostUnreachable(): Problem {
  return new Problem(
    503,
    'hypervisor_unavailable',
    'The host of this VPS does not answer; its last known state is shown. Retry later.',
    undefined,
    {
      'Retry-After': '60',
    },
  );
}

/**
 * The decision and the writes of a power action, inside the caller's transaction that holds the
 * service row lock: the action recorded as running, the transitional power state, its activity entry.
 * What a type checks, reserves and records is its handler's (InstanceActionHandlers).
 */
@Injectable()
export class ActionStart {
  constructor(
    private readonly actions: InstanceActionsRepository,
    private readonly instances: VpsInstancesRepository,
    private readonly activity: ActivityLog,
    private readonly handlers: InstanceActionHandlers,
  ) {}

  async begin(
    m: EntityManager,
    caller: Principal,
    service: VpsState & { powerState: PowerState },
    type: ActionType,
    input?: ActionInput,
  ): Promise<ActionRow> {
    const { accountId } = caller;
    const serviceId = service.id;
    const handler = this.handlers.handlerOf(type);
    const request = { accountId, service, input };
    // The request's own faults (an unknown image, another account's key) come before the machine's state.
    const checked = (await handler.check?.(m, request)) ?? null;
    const refused = await this.handlers.refusal(m, serviceId, type, handler);
    if (refused) throw Problem.conflict('invalid_state', refused);
    const actionRunning = await this.actions.hasRunning(m, serviceId);
    const plan = planAction({ serviceStatus: service.status, powerState: service.powerState, actionRunning }, type);
    if (!plan.ok) throw Problem.conflict(plan.code, plan.detail);
    if (service.host?.state === 'unreachable') throw hostUnreachable();
    // What a type reserves (a snapshot's place in the account's limit) only once the machine may take it: a refused action reserves nothing.
    const record = checked ?? (await handler.reserve?.(m, request)) ?? null;
    const action = await this.actions.insertRunning(m, serviceId, type, service.powerState, record?.params ?? null);
    await this.instances.setPowerState(m, serviceId, plan.transitional);
    await record?.alsoWrite?.();
    await this.activity.record(m, {
      accountId,
      caller,
      action: `instance.${type}`,
      entity: { type: 'service', id: serviceId },
      details: { actionId: action.id, ...record?.details },
    });
    return action;
  }
}
