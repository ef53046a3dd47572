import { Injectable } from '@nestjs/common';
import { AppConfig, isUniqueViolation, Principal, Problem, TransactionRunner } from '@app/core';
import type { ActionInput } from './action-handler';
import { ActionStart } from './action-start';
import { InstanceActionResponse } from './dto/instance-action.response';
import { InstanceActionJob } from './instance-action.job';
import { PowerStateSync } from '../instances/power-state/power-state-sync';
import { notAVps, VpsStates } from '../instances/vps-states';
import type { ActionType } from '../vps.types';

@Injectable()
export class InstanceActionsService {
  constructor(
    private readonly states: VpsStates,
    private readonly start: ActionStart,
    private readonly tx: TransactionRunner,
    private readonly actionJob: InstanceActionJob,
    private readonly config: AppConfig,
    private readonly sync: PowerStateSync,
  ) {}

  /**
   * Records the action and the transitional power state under the service row lock, so of two
   * concurrent requests exactly one begins; its job, queued in the same transaction, drives the provider
   * once this process's worker is woken after COMMIT.
   */
  async request(caller: Principal, serviceId: string, type: ActionType, input?: ActionInput): Promise<InstanceActionResponse> {
    const { accountId } = caller;
    // The decision follows the machine's real state (a guest may have shut itself down), asked outside the lock.
    await this.sync.refreshForAccount(accountId, serviceId);
    const row = await this.tx
      .run(async (m) => {
        const service = await this.states.lockFor(m, accountId, serviceId);
        if (!service) throw Problem.notFound('Service');
        const { powerState } = service;
        if (!powerState) throw notAVps();
        const action = await this.start.begin(m, caller, { ...service, powerState }, type, input);
        await this.actionJob.enqueue(m, action.id);
        return action;
      })
      .catch((err: unknown) => {
        if (isUniqueViolation(err, 'instance_actions_one_running_idx')) {
          throw Problem.conflict('action_in_progress', 'Another action on this instance is still running.');
        }
        throw err;
      });
    return InstanceActionResponse.fromRow(row);
  }

  locationOf(action: InstanceActionResponse): string {
    return `${this.config.publicUrl}/api/services/${action.serviceId}/instance/actions/${action.id}`;
  }
}
