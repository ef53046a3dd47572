import type { CreateSnapshotRequest } from '../dto/create-snapshot.request';
import { Injectable, OnModuleInit } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { ComputeProvider, ComputeProviderError, InstanceRef, StepReporter } from '../../compute/compute-provider';
import type { ActionRecord, ActionRequest, AfterCommit, InstanceActionHandler, Outcome } from '../../actions/action-handler';
import { InstanceActionHandlers } from '../../actions/instance-action-handlers';
import type { PendingAction } from '../../actions/instance-actions.repository';
import { VpsInstancesRepository } from '../../instances/vps-instances.repository';
import { SnapshotImages } from './snapshot-images';

/** A snapshot copies the disk into the image reserved with the action, which its end makes available or deletes. */
@Injectable()
export class SnapshotAction implements InstanceActionHandler, OnModuleInit {
  readonly refusedInRescue = true;

  constructor(
    private readonly handlers: InstanceActionHandlers,
    private readonly compute: ComputeProvider,
    private readonly snapshots: SnapshotImages,
    private readonly instances: VpsInstancesRepository,
  ) {}

  onModuleInit(): void {
    this.handlers.register('snapshot', this);
  }

  /** The account's limit is counted once the machine may be snapshotted. */
  async reserve(m: EntityManager, { accountId, service, input }: ActionRequest): Promise<ActionRecord | null> {
    const snapshot = input?.snapshot as CreateSnapshotRequest | undefined;
    if (!snapshot) return null;
    const facts = await this.instances.guestOf(m, service.id);
    const image = await this.snapshots.reserve(m, accountId, { serviceId: service.id, ...facts }, snapshot.name);
    return { params: { snapshot: { imageId: image.id } }, details: { imageId: image.id, slug: image.slug, name: image.name } };
  }

  begin(action: PendingAction, ref: InstanceRef, steps: StepReporter): Promise<string> {
    const { params } = action;
    if (!params || !('snapshot' in params)) throw new ComputeProviderError('invalid_state', 'The snapshot has no image recorded.');
    return this.compute.snapshotMachine(ref, params.snapshot.imageId, action.id, steps);
  }

  async finish(m: EntityManager, action: PendingAction, outcome: Outcome): Promise<AfterCommit | void> {
    const { params } = action;
    if (!params || !('snapshot' in params)) return;
    const { imageId } = params.snapshot;
    const result = outcome.state === 'succeeded' ? (outcome.result ?? null) : null;
    await this.snapshots.settle(m, imageId, result?.sizeBytes ?? null);
    // A snapshot without its size (an adapter that said nothing) is not worth keeping.
    if (!result) return () => this.snapshots.discardVolume(imageId);
  }
}
