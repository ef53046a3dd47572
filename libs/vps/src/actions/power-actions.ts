import { Injectable, OnModuleInit } from '@nestjs/common';
import { ComputeProvider, InstanceRef, StepReporter } from '../compute/compute-provider';
import type { InstanceActionHandler } from './action-handler';
import { InstanceActionHandlers } from './instance-action-handlers';
import type { PendingAction } from './instance-actions.repository';

/** start, stop and reboot: the hypervisor's own power operations, which take nothing but the machine. */
@Injectable()
export class PowerActions implements InstanceActionHandler, OnModuleInit {
  constructor(
    private readonly handlers: InstanceActionHandlers,
    private readonly compute: ComputeProvider,
  ) {}

  onModuleInit(): void {
    for (const type of ['start', 'stop', 'reboot'] as const) this.handlers.register(type, this);
  }

  begin(action: PendingAction, ref: InstanceRef, steps: StepReporter): Promise<string> {
    return this.compute.powerAction(ref, action.type, action.id, steps);
  }
}
