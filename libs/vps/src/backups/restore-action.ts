import { Injectable, OnModuleInit } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { ComputeProvider, ComputeProviderError, InstanceRef, StepReporter } from '../compute/compute-provider';
import type { ActionRecord, ActionRequest, InstanceActionHandler } from '../actions/action-handler';
import { InstanceActionHandlers } from '../actions/instance-action-handlers';
import type { PendingAction, RestoreParams } from '../actions/instance-actions.repository';
import { BackupStore } from './backup-store';
import { RestoredMachines } from './restored-machines';

/** A restore puts the recorded backup's disk back, read from the backup store. */
@Injectable()
export class RestoreAction implements InstanceActionHandler, OnModuleInit {
  readonly refusedInRescue = true;

  constructor(
    private readonly handlers: InstanceActionHandlers,
    private readonly compute: ComputeProvider,
    private readonly backups: BackupStore,
    private readonly restoredMachines: RestoredMachines,
  ) {}

  onModuleInit(): void {
    this.handlers.register('restore', this);
  }

  /** What the restore makes again if the hypervisor lost the machine, recorded with it. */
  async reserve(m: EntityManager, { accountId, service, input }: ActionRequest): Promise<ActionRecord | null> {
    const restore = input?.restore as RestoreParams['restore'] | undefined;
    if (!restore) return null;
    const machine = await this.restoredMachines.plan(m, { id: service.id, accountId, name: service.name });
    return { params: { restore: { ...restore, machine } }, details: { backupId: restore.backupId } };
  }

  begin(action: PendingAction, ref: InstanceRef, steps: StepReporter): Promise<string> {
    const { params } = action;
    if (!params || !('restore' in params)) throw new ComputeProviderError('invalid_state', 'The restore has no backup recorded.');
    const { key, sizeBytes, machine } = params.restore;
    // A backup the store cannot give fails the restore (the disk is not touched before it is read).
    const open = () =>
      this.backups.get(key).catch((err: Error) => Promise.reject(new ComputeProviderError('backup_unavailable', err.message)));
    return this.compute.restoreMachine(ref, open, sizeBytes, action.id, machine, steps);
  }
}
