import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { ActivityLog, Principal, Problem } from '@app/core';
import { CreateSnapshotRequest } from './dto/create-snapshot.request';
import { RebuildInstanceRequest } from './dto/rebuild-instance.request';
import { bootOf, GuestSetup, hostnameOf } from './guest-setup';
import { SnapshotImages } from './images/snapshot-images';
import { RestoredMachines } from './backups/restored-machines';
import { ActionRow, InstanceActionsRepository, RebuildParams, RestoreParams, SnapshotParams } from './instance-actions.repository';
import { planAction } from './power-state-machine';
import { VpsInstancesRepository } from './vps-instances.repository';
import { VpsRescuesRepository } from './rescue/vps-rescues.repository';
import type { VpsState } from './vps-states';
import type { ActionType, PowerState } from './vps.types';

/** Issue 40: the VPS's host stopped answering; nothing is asked of it until it answers again. */
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

/** What a rebuild or a snapshot is asked with (the power actions take nothing). */
export type ActionInput = { rebuild: RebuildInstanceRequest } | { snapshot: CreateSnapshotRequest } | RestoreParams;

/**
 * The decision and the writes of a power action, inside the caller's transaction that holds the
 * service row lock: the action recorded as running, the transitional power state, its activity entry.
 */
@Injectable()
export class ActionStart {
  constructor(
    private readonly actions: InstanceActionsRepository,
    private readonly instances: VpsInstancesRepository,
    private readonly guests: GuestSetup,
    private readonly activity: ActivityLog,
    private readonly snapshots: SnapshotImages,
    private readonly rescues: VpsRescuesRepository,
    private readonly restoredMachines: RestoredMachines,
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
    // The request's own faults (an unknown image, another account's key) come before the machine's state.
    const params = input && 'rebuild' in input ? await this.rebuildParams(m, accountId, serviceId, service.name, input.rebuild) : null;
    // In rescue, a rebuild or snapshot would take the rescue system's disk for the VPS's own (issue 39), and a restore would
    // boot the rescue system, not what it put back; power actions stay in rescue.
    if ((type === 'rebuild' || type === 'snapshot' || type === 'restore') && (await this.rescues.find(m, serviceId)))
      throw Problem.conflict('invalid_state', `The instance is in rescue mode; unrescue it before a ${type}.`);
    const actionRunning = await this.actions.hasRunning(m, serviceId);
    const plan = planAction({ serviceStatus: service.status, powerState: service.powerState, actionRunning }, type);
    if (!plan.ok) throw Problem.conflict(plan.code, plan.detail);
    if (service.host?.state === 'unreachable') throw hostUnreachable();
    // The account's limit is counted once the machine may be snapshotted: a refused action reserves nothing.
    const snapshot = input && 'snapshot' in input ? await this.snapshotParams(m, accountId, serviceId, input.snapshot) : null;
    const restore = input && 'restore' in input ? await this.restoreParams(m, accountId, service, input) : null;
    const recorded = params?.recorded ?? snapshot?.recorded ?? restore?.recorded ?? null;
    const action = await this.actions.insertRunning(m, serviceId, type, service.powerState, recorded);
    await this.instances.setPowerState(m, serviceId, plan.transitional);
    if (params) await this.instances.setImage(m, serviceId, params.recorded.boot.imageId);
    await this.activity.record(m, {
      accountId,
      caller,
      action: `instance.${type}`,
      entity: { type: 'service', id: serviceId },
      details: { actionId: action.id, ...(params ?? snapshot ?? restore)?.details },
    });
    return action;
  }

  private async restoreParams(
    m: EntityManager,
    accountId: string,
    service: { id: string; name: string },
    input: RestoreParams,
  ): Promise<{ recorded: RestoreParams; details: Record<string, unknown> }> {
    const machine = await this.restoredMachines.plan(m, { id: service.id, accountId, name: service.name });
    return { recorded: { restore: { ...input.restore, machine } }, details: { backupId: input.restore.backupId } };
  }

  private async snapshotParams(
    m: EntityManager,
    accountId: string,
    serviceId: string,
    input: CreateSnapshotRequest,
  ): Promise<{ recorded: SnapshotParams; details: Record<string, unknown> }> {
    const facts = await this.instances.guestOf(m, serviceId);
    const image = await this.snapshots.reserve(m, accountId, { serviceId, ...facts }, input.name);
    return { recorded: { snapshot: { imageId: image.id } }, details: { imageId: image.id, slug: image.slug, name: image.name } };
  }

  private async rebuildParams(
    m: EntityManager,
    accountId: string,
    serviceId: string,
    serviceName: string,
    input: RebuildInstanceRequest,
  ): Promise<{ recorded: RebuildParams; details: Record<string, unknown> }> {
    const facts = await this.instances.guestOf(m, serviceId);
    if (!facts.diskGb) throw Problem.conflict('invalid_state', 'This VPS has no disk size on record; ask support to rebuild it.');
    const guest = await this.guests.plan(m, accountId, { image: input.image, diskGb: facts.diskGb, sshKeyIds: input.sshKeyIds ?? 'all' });
    return {
      // The seed's instance-id is the action's own id, set when it runs.
      recorded: { boot: bootOf(guest, '', hostnameOf(serviceName, serviceId)), network: facts.network },
      details: { image: guest.image.slug, sshKeyIds: guest.sshKeyIds },
    };
  }
}
