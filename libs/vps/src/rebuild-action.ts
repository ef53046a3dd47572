import { Injectable, OnModuleInit } from '@nestjs/common';
import { ComputeProvider, ComputeProviderError, InstanceRef } from './compute/compute-provider';
import { InstanceActionHandler, InstanceActionHandlers } from './instance-action-handlers';
import type { PendingAction } from './instance-actions.repository';

/** A rebuild installs the image, keys and network recorded with the action. */
@Injectable()
export class RebuildAction implements InstanceActionHandler, OnModuleInit {
  constructor(
    private readonly handlers: InstanceActionHandlers,
    private readonly compute: ComputeProvider,
  ) {}

  onModuleInit(): void {
    this.handlers.register('rebuild', this);
  }

  begin(action: PendingAction, ref: InstanceRef): Promise<string> {
    const { params } = action;
    if (!params || !('boot' in params)) throw new ComputeProviderError('invalid_state', 'The rebuild has no image recorded.');
    // A new instance-id per rebuild makes cloud-init run its first-boot modules (keys, host name) again.
    const boot = { ...params.boot, seed: { ...params.boot.seed, instanceId: `iid-${action.id}` } };
    return this.compute.rebuildMachine(ref, boot, params.network, action.id);
  }
}
