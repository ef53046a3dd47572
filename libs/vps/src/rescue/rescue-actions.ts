import { Injectable, OnModuleInit } from '@nestjs/common';
import { ComputeProvider, InstanceRef } from '../compute/compute-provider';
import { InstanceActionHandler, InstanceActionHandlers } from '../instance-action-handlers';
import type { PendingAction } from '../instance-actions.repository';

// RescueStart records a rescue's boot and an unrescue's network with the action; one without them
// (none is written so) goes to the hypervisor as a plain power operation, as it always did.

/** A rescue boots the rescue system recorded with the action, the VPS's disk attached. */
@Injectable()
export class RescueAction implements InstanceActionHandler, OnModuleInit {
  constructor(
    private readonly handlers: InstanceActionHandlers,
    private readonly compute: ComputeProvider,
  ) {}

  onModuleInit(): void {
    this.handlers.register('rescue', this);
  }

  begin(action: PendingAction, ref: InstanceRef): Promise<string> {
    const { params } = action;
    if (!params || !('rescue' in params)) return this.compute.powerAction(ref, action.type, action.id);
    return this.compute.rescueMachine(ref, params.rescue.boot, params.rescue.network, action.id);
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

  begin(action: PendingAction, ref: InstanceRef): Promise<string> {
    const { params } = action;
    if (!params || !('unrescue' in params)) return this.compute.powerAction(ref, action.type, action.id);
    return this.compute.unrescueMachine(ref, params.unrescue.network, action.id);
  }
}
