import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import {
  ActivityLog,
  AppConfig,
  isUniqueViolation,
  PageQuery,
  Paginated,
  paginated,
  Principal,
  Problem,
  TransactionRunner,
} from '@app/core';
import { ServicesRepository } from '../services.repository';
import type { ActionType } from '../service.types';
import { InstanceActionResponse } from './dto/instance-action.response';
import { InstanceActionJob } from './instance-action.job';
import { RebuildInstanceRequest } from './dto/rebuild-instance.request';
import { bootOf, GuestSetup, hostnameOf } from './guest-setup';
import { InstanceActionsRepository, RebuildParams } from './instance-actions.repository';
import { planAction } from './power-state-machine';
import { PowerStateSync } from './power-state-sync';
import { VpsInstancesRepository } from './vps-instances.repository';
import { VpsLookup } from './vps-lookup';

@Injectable()
export class InstanceActionsService {
  constructor(
    private readonly services: ServicesRepository,
    private readonly actions: InstanceActionsRepository,
    private readonly instances: VpsInstancesRepository,
    private readonly vps: VpsLookup,
    private readonly tx: TransactionRunner,
    private readonly actionJob: InstanceActionJob,
    private readonly config: AppConfig,
    private readonly sync: PowerStateSync,
    private readonly activity: ActivityLog,
    private readonly guests: GuestSetup,
  ) {}

  /**
   * Records the action and the transitional power state under the service row lock, so of two
   * concurrent requests exactly one begins; its job, queued in the same transaction, drives the provider
   * once this process's worker is woken after COMMIT.
   */
  async request(caller: Principal, serviceId: string, type: ActionType, rebuild?: RebuildInstanceRequest): Promise<InstanceActionResponse> {
    const { accountId } = caller;
    // The decision follows the machine's real state (a guest may have shut itself down), asked outside the lock.
    await this.sync.refreshForAccount(accountId, serviceId);
    const row = await this.tx
      .run(async (m) => {
        const service = await this.services.lockForAccount(m, accountId, serviceId);
        if (!service) throw Problem.notFound('Service');
        if (service.type !== 'vps' || !service.powerState) throw VpsLookup.noInstance();
        // The request's own faults (an unknown image, another account's key) come before the machine's state.
        const params = rebuild ? await this.rebuildParams(m, accountId, serviceId, service.name, rebuild) : null;
        const actionRunning = await this.actions.hasRunning(m, serviceId);
        const plan = planAction({ serviceStatus: service.status, powerState: service.powerState, actionRunning }, type);
        if (!plan.ok) throw Problem.conflict(plan.code, plan.detail);
        const action = await this.actions.insertRunning(m, serviceId, type, service.powerState, params?.recorded);
        await this.instances.setPowerState(m, serviceId, plan.transitional);
        if (params) await this.instances.setImage(m, serviceId, params.recorded.boot.imageId);
        await this.activity.record(m, {
          accountId,
          caller,
          action: `instance.${type}`,
          entity: { type: 'service', id: serviceId },
          details: { actionId: action.id, ...params?.details },
        });
        await this.actionJob.enqueue(m, action.id);
        return action;
      })
      .catch((err: unknown) => {
        if (isUniqueViolation(err, 'instance_actions_one_running_idx')) {
          throw Problem.conflict('action_in_progress', 'Another action on this instance is still running.');
        }
        throw err;
      });
    this.actionJob.wake();
    return InstanceActionResponse.fromRow(row);
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

  async list(accountId: string, serviceId: string, query: PageQuery): Promise<Paginated<InstanceActionResponse>> {
    await this.vps.require(accountId, serviceId);
    const { rows, total } = await this.actions.page(serviceId, query);
    return paginated(rows.map(InstanceActionResponse.fromRow), query, total);
  }

  async get(accountId: string, serviceId: string, actionId: string): Promise<InstanceActionResponse> {
    await this.vps.require(accountId, serviceId);
    const row = await this.actions.findForService(serviceId, actionId);
    if (!row) throw Problem.notFound('Action');
    return InstanceActionResponse.fromRow(row);
  }

  locationOf(action: InstanceActionResponse): string {
    return `${this.config.publicUrl}/api/services/${action.serviceId}/instance/actions/${action.id}`;
  }
}
