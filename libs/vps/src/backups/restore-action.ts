import { Injectable, OnModuleInit } from '@nestjs/common';
import { ComputeProvider, ComputeProviderError, InstanceRef } from '../compute/compute-provider';
import { InstanceActionHandler, InstanceActionHandlers } from '../instance-action-handlers';
import type { PendingAction } from '../instance-actions.repository';
import { BackupStore } from './backup-store';

/** A restore puts the recorded backup's disk back, read from the backup store. */
@Injectable()
export class RestoreAction implements InstanceActionHandler, OnModuleInit {
  constructor(
    private readonly handlers: InstanceActionHandlers,
    private readonly compute: ComputeProvider,
    private readonly backups: BackupStore,
  ) {}

  onModuleInit(): void {
    this.handlers.register('restore', this);
  }

  begin(action: PendingAction, ref: InstanceRef): Promise<string> {
    const { params } = action;
    if (!params || !('restore' in params)) throw new ComputeProviderError('invalid_state', 'The restore has no backup recorded.');
    const { key, sizeBytes, machine } = params.restore;
    // A backup the store cannot give fails the restore (the disk is not touched before it is read).
    const open = () =>
      this.backups.get(key).catch((err: Error) => Promise.reject(new ComputeProviderError('backup_unavailable', err.message)));
    return this.compute.restoreMachine(ref, open, sizeBytes, action.id, machine);
  }
}
