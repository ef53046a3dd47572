import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import {
  ActivityLog,
  AppConfig,
  isUniqueViolation,
  PageQuery,
  paginated,
  Paginated,
  Principal,
  Problem,
  TransactionRunner,
} from '@app/core';
import { ServiceOwnership, ServiceState } from '@app/services';
import { VolumeActionResponse } from './dto/volume-action.response';
import { VolumeSummaryResponse } from './dto/volume-summary.response';
import { AttachVolumeRequest, ResizeVolumeRequest } from './dto/volume.request';
import { VolumeActionJob } from './volume-action.job';
import { volumePart } from './volume-part';
import type { VolumeActionType, VolumeState } from './volume.types';
import { VolumeRow, VolumesRepository } from './volumes.repository';
import './volume.events';

export function notAVolume(): Problem {
  return new Problem(404, 'not_found', 'This service has no volume (it is not a volume).');
}

/** What an action changes when it begins, and what the activity log says of it. */
interface ActionPlan {
  state: VolumeState;
  attachedTo?: string;
  params: { targetServiceId?: string | null; sizeGb?: number };
  details: Record<string, unknown>;
}

/** A volume service's block device and its actions: attach to a VPS, detach, grow (docs/decisions/volumes.md). */
@Injectable()
export class VolumesService {
  constructor(
    private readonly ownership: ServiceOwnership,
    private readonly volumes: VolumesRepository,
    private readonly jobs: VolumeActionJob,
    private readonly tx: TransactionRunner,
    private readonly activity: ActivityLog,
    private readonly config: AppConfig,
  ) {}

  async get(accountId: string, id: string): Promise<VolumeSummaryResponse> {
    await this.volumeService(accountId, id);
    return volumePart((await this.volumes.find(id))!);
  }

  attach(caller: Principal, id: string, { serviceId }: AttachVolumeRequest): Promise<VolumeActionResponse> {
    return this.begin(caller, id, 'attach', async (m, volume) => {
      if (volume.attachedTo)
        throw Problem.conflict(
          'volume_in_use',
          `The volume is attached to ${volume.attachedTo}; detach it first (a volume is on one VPS at a time).`,
        );
      // The VPS's row is locked before the volume's, as its termination locks them.
      const vps = await this.ownership.lockFor(m, caller.accountId, serviceId);
      const target = vps && (await this.volumes.attachTarget(m, caller.accountId, serviceId));
      if (!target || target.type !== 'vps') throw new Problem(404, 'not_found', `Service ${serviceId} is not a VPS of this account.`);
      if (target.status !== 'active') throw Problem.conflict('invalid_state', `The VPS ${serviceId} is ${target.status}.`);
      if (target.region !== volume.region)
        throw Problem.conflict('region_mismatch', `The volume is in ${volume.region}, the VPS in ${target.region ?? 'no region'}.`);
      const { perVps } = this.config.volumes;
      if (target.volumes >= perVps)
        throw Problem.conflict('quota_exceeded', `A VPS holds at most ${perVps} volumes; the VPS ${serviceId} has ${target.volumes}.`);
      return { state: 'attaching', attachedTo: serviceId, params: { targetServiceId: serviceId }, details: { vpsServiceId: serviceId } };
    });
  }

  detach(caller: Principal, id: string): Promise<VolumeActionResponse> {
    return this.begin(caller, id, 'detach', (_m, volume) => {
      if (!volume.attachedTo) throw Problem.conflict('invalid_state', 'The volume is not attached to a VPS.');
      const plan: ActionPlan = {
        state: 'detaching',
        params: { targetServiceId: volume.attachedTo },
        details: { vpsServiceId: volume.attachedTo },
      };
      return Promise.resolve(plan);
    });
  }

  resize(caller: Principal, id: string, { sizeGb }: ResizeVolumeRequest): Promise<VolumeActionResponse> {
    return this.begin(caller, id, 'resize', (_m, volume) => {
      if (sizeGb <= volume.sizeGb)
        throw Problem.invalidInput(`The volume has ${volume.sizeGb} GiB; volumes grow, never shrink.`, [
          { field: 'sizeGb', message: `must be larger than the current ${volume.sizeGb} GiB` },
        ]);
      const plan: ActionPlan = { state: 'resizing', params: { sizeGb }, details: { fromSizeGb: volume.sizeGb, sizeGb } };
      return Promise.resolve(plan);
    });
  }

  async action(accountId: string, id: string, actionId: string): Promise<VolumeActionResponse> {
    await this.volumeService(accountId, id);
    const row = await this.volumes.actionOfService(id, actionId);
    if (!row) throw Problem.notFound('Action');
    return VolumeActionResponse.fromRow(row);
  }

  async actions(accountId: string, id: string, query: PageQuery): Promise<Paginated<VolumeActionResponse>> {
    await this.volumeService(accountId, id);
    const { rows, total } = await this.volumes.pageOfActions(id, query);
    return paginated(rows.map(VolumeActionResponse.fromRow), query, total);
  }

  locationOf(action: VolumeActionResponse): string {
    return `${this.config.publicUrl}/api/services/${action.serviceId}/volume/actions/${action.id}`;
  }

  /**
   * Records the action and the volume's transitional state under the service row lock, so of two
   * requests exactly one begins; its job, queued in the same transaction, does the work after COMMIT.
   */
  private async begin(
    caller: Principal,
    id: string,
    type: VolumeActionType,
    plan: (m: EntityManager, volume: VolumeRow) => Promise<ActionPlan>,
  ): Promise<VolumeActionResponse> {
    const { accountId } = caller;
    const row = await this.tx
      .run(async (m) => {
        const service = await this.ownership.lockFor(m, accountId, id);
        live(service);
        const current = await this.volumes.find(id, m);
        if (current && current.state !== 'detached' && current.state !== 'attached')
          throw Problem.conflict('action_in_progress', `The volume is ${current.state}; wait for that action to end.`);
        const planned = await plan(m, current!);
        // Locked after the plan (an attach locks its VPS first); a VPS terminated meanwhile detached it.
        const volume = (await this.volumes.lock(m, id))!;
        if (volume.attachedTo !== current!.attachedTo)
          throw Problem.conflict('invalid_state', 'The volume was detached meanwhile (its VPS was terminated); look at it again.');
        const action = await this.volumes.insertAction(m, id, type, planned.params);
        await this.volumes.update(m, id, { state: planned.state, ...(planned.attachedTo && { attachedTo: planned.attachedTo }) });
        await this.activity.record(m, {
          accountId,
          caller,
          action: `volume.${type}`,
          entity: { type: 'service', id },
          details: { actionId: action.id, ...planned.details },
        });
        await this.jobs.enqueue(m, action.id);
        return action;
      })
      .catch((err: unknown) => {
        if (isUniqueViolation(err, 'volume_actions_one_running_idx'))
          throw Problem.conflict('action_in_progress', 'Another action on this volume is still running.');
        throw err;
      });
    return VolumeActionResponse.fromRow(row);
  }

  private async volumeService(accountId: string, id: string): Promise<ServiceState> {
    const service = await this.ownership.stateFor(accountId, id);
    if (!service) throw Problem.notFound('Service');
    if (service.type !== 'volume') throw notAVolume();
    return service;
  }
}

/** The caller's volume service, live: a suspended or finished one takes no action. */
function live(service: ServiceState | null): asserts service is ServiceState {
  if (!service) throw Problem.notFound('Service');
  if (service.type !== 'volume') throw notAVolume();
  if (service.status !== 'active') throw Problem.conflict('invalid_state', `The volume service is ${service.status}.`);
}
