import { Injectable, OnModuleInit } from '@nestjs/common';
import { ComputeProvider, ComputeProviderError, InstanceRef } from '../compute/compute-provider';
import { InstanceActionHandler, InstanceActionHandlers } from '../instance-action-handlers';
import type { PendingAction } from '../instance-actions.repository';

/** A snapshot copies the disk into the image reserved with the action. */
@Injectable()
export class SnapshotAction implements InstanceActionHandler, OnModuleInit {
  constructor(
    private readonly handlers: InstanceActionHandlers,
    private readonly compute: ComputeProvider,
  ) {}

  onModuleInit(): void {
    this.handlers.register('snapshot', this);
  }

  begin(action: PendingAction, ref: InstanceRef): Promise<string> {
    const { params } = action;
    if (!params || !('snapshot' in params)) throw new ComputeProviderError('invalid_state', 'The snapshot has no image recorded.');
    return this.compute.snapshotMachine(ref, params.snapshot.imageId, action.id);
  }
}
