import type { RebuildInstanceRequest } from './dto/rebuild-instance.request';
import { Injectable, OnModuleInit } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { Problem } from '@app/core';
import { ComputeProvider, ComputeProviderError, InstanceRef, StepReporter } from '../compute/compute-provider';
import { VpsHostKeys } from '../host-keys/vps-host-keys';
import { bootOf, GuestSetup, hostnameOf } from '../instances/guest-setup';
import type { ActionRecord, ActionRequest, InstanceActionHandler } from './action-handler';
import { InstanceActionHandlers } from './instance-action-handlers';
import type { PendingAction } from './instance-actions.repository';
import { VpsInstancesRepository } from '../instances/vps-instances.repository';

/** A rebuild installs the image, keys and network recorded with the action. */
@Injectable()
export class RebuildAction implements InstanceActionHandler, OnModuleInit {
  readonly refusedInRescue = true;

  constructor(
    private readonly handlers: InstanceActionHandlers,
    private readonly compute: ComputeProvider,
    private readonly instances: VpsInstancesRepository,
    private readonly guests: GuestSetup,
    private readonly hostKeys: VpsHostKeys,
  ) {}

  onModuleInit(): void {
    this.handlers.register('rebuild', this);
  }

  async check(m: EntityManager, { accountId, service, input }: ActionRequest): Promise<ActionRecord | null> {
    const rebuild = input?.rebuild as RebuildInstanceRequest | undefined;
    if (!rebuild) return null;
    const facts = await this.instances.guestOf(m, service.id);
    if (!facts.diskGb) throw Problem.conflict('invalid_state', 'This VPS has no disk size on record; ask support to rebuild it.');
    const { image, sshKeyIds } = rebuild;
    const guest = await this.guests.plan(m, accountId, { image, diskGb: facts.diskGb, sshKeyIds: sshKeyIds ?? 'all' });
    // The seed's instance-id is the action's own id, set when it runs.
    const boot = bootOf(guest, '', hostnameOf(service.name, service.id));
    return {
      params: { boot, network: facts.network },
      details: { image: guest.image.slug, sshKeyIds: guest.sshKeyIds },
      alsoWrite: async () => {
        await this.instances.setImage(m, service.id, boot.imageId);
        await this.hostKeys.ensure(m, service.id);
      },
    };
  }

  async begin(action: PendingAction, ref: InstanceRef, steps: StepReporter): Promise<string> {
    const { params } = action;
    if (!params || !('boot' in params)) throw new ComputeProviderError('invalid_state', 'The rebuild has no image recorded.');
    // A new instance-id per rebuild makes cloud-init run its first-boot modules (keys, host name) again;
    // the host keys stay the VPS's own.
    const hostKeys = await this.hostKeys.forSeed(action.serviceId, 'vps');
    const boot = { ...params.boot, seed: { ...params.boot.seed, instanceId: `iid-${action.id}`, hostKeys } };
    return this.compute.rebuildMachine(ref, boot, params.network, action.id, steps);
  }
}
