import { Injectable, OnModuleInit } from '@nestjs/common';
import { ComputeProvider, InstanceRef, StepReporter } from '../compute/compute-provider';
import { VpsHostKeys } from '../host-keys/vps-host-keys';
import type { ActionRefusal, InstanceActionHandler } from '../actions/action-handler';
import { InstanceActionHandlers } from '../actions/instance-action-handlers';
import type { PendingAction } from '../actions/instance-actions.repository';
import { VpsRescuesRepository } from './vps-rescues.repository';

// RescueStart records a rescue's boot and an unrescue's network with the action; one without them
// (none is written so) goes to the hypervisor as a plain power operation, as it always did.

/**
 * In rescue, a rebuild or snapshot would take the rescue system's disk for the VPS's own, and a
 * restore would boot the rescue system, not what it put back; power actions stay in rescue.
 */
export function refusedInRescue(rescues: VpsRescuesRepository): ActionRefusal {
  return async (m, serviceId, type, handler) =>
    handler.refusedInRescue && (await rescues.find(m, serviceId)) ? `The instance is in rescue mode; unrescue it before a ${type}.` : null;
}

/** A rescue boots the rescue system recorded with the action, the VPS's disk attached; the rescue refuses what cannot run in it. */
@Injectable()
export class RescueAction implements InstanceActionHandler, OnModuleInit {
  constructor(
    private readonly handlers: InstanceActionHandlers,
    private readonly compute: ComputeProvider,
    private readonly rescues: VpsRescuesRepository,
    private readonly hostKeys: VpsHostKeys,
  ) {}

  onModuleInit(): void {
    this.handlers.register('rescue', this);
    this.handlers.refuseWhen(refusedInRescue(this.rescues));
  }

  async begin(action: PendingAction, ref: InstanceRef, steps: StepReporter): Promise<string> {
    const { params } = action;
    if (!params || !('rescue' in params)) return this.compute.powerAction(ref, action.type, action.id, steps);
    const { boot, network } = params.rescue;
    const hostKeys = await this.hostKeys.forSeed(action.serviceId, 'rescue');
    return this.compute.rescueMachine(ref, { ...boot, seed: { ...boot.seed, hostKeys } }, network, action.id, steps);
  }
}

/** An unrescue boots the VPS's own disk again. */
@Injectable()
export class UnrescueAction implements InstanceActionHandler, OnModuleInit {
  constructor(
    private readonly handlers: InstanceActionHandlers,
    private readonly compute: ComputeProvider,
  ) {}

  onModuleInit(): void {
    this.handlers.register('unrescue', this);
  }

  begin(action: PendingAction, ref: InstanceRef, steps: StepReporter): Promise<string> {
    const { params } = action;
    if (!params || !('unrescue' in params)) return this.compute.powerAction(ref, action.type, action.id, steps);
    return this.compute.unrescueMachine(ref, params.unrescue.network, action.id, steps);
  }
}
