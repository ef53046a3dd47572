import { Injectable } from '@nestjs/common';
import { ActivityLog, domainEvent, TransactionRunner } from '@app/core';
import { ServiceOwnership } from '@app/services';
import { ActionNote, ComputeProvider, instanceRef } from '../compute/compute-provider';
import type { AfterCommit, Outcome } from './action-handler';
import { InstanceActionHandlers } from './instance-action-handlers';
import { InstanceActionsRepository, PendingAction } from './instance-actions.repository';
import { isTransitional, targetOf } from '../instances/power-state/power-state-machine';
import { VpsInstancesRepository } from '../instances/vps-instances.repository';
import type { InstanceActionFinishedEvent } from '../vps.events';

/**
 * Records how an action ended: the outcome and the power state in one transaction (under the
 * service row lock, as a new request takes it), what the action's handler settles of its own, its
 * activity entry, and instance.action_succeeded / instance.action_failed after COMMIT.
 */
@Injectable()
export class InstanceActionOutcome {
  constructor(
    private readonly actions: InstanceActionsRepository,
    private readonly instances: VpsInstancesRepository,
    private readonly ownership: ServiceOwnership,
    private readonly compute: ComputeProvider,
    private readonly tx: TransactionRunner,
    private readonly activity: ActivityLog,
    private readonly handlers: InstanceActionHandlers,
  ) {}

  async record(action: PendingAction, outcome: Outcome): Promise<void> {
    const reported = await this.compute.powerState(instanceRef(action.serviceId, action)).catch(() => null);
    const fallback = outcome.state === 'succeeded' ? targetOf(action.type, action.fromState) : action.fromState;
    const powerState = reported && !isTransitional(reported) ? reported : fallback;
    const error = outcome.state === 'failed' ? clip(outcome.error) : null;
    const notice = outcome.state === 'succeeded' && outcome.notice ? clip(outcome.notice) : null;
    const result = outcome.state === 'succeeded' ? (outcome.result ?? null) : null;
    const handler = this.handlers.handlerOf(action.type);
    const afterCommit = await this.tx.run(async (m, publish): Promise<AfterCommit | void> => {
      // Same lock order as a new request: the service row first.
      const service = await this.ownership.lockById(m, action.serviceId);
      if (!service) return;
      const errorDetail = outcome.state === 'failed' ? (outcome.operatorDetail ?? null) : null;
      if (!(await this.actions.finish(m, action.id, { status: outcome.state, error, errorDetail, notice, result }))) return; // another replica recorded it first
      await this.instances.setPowerState(m, action.serviceId, powerState);
      const afterCommit = await handler.finish?.(m, action, outcome);
      publish(
        domainEvent<InstanceActionFinishedEvent>(
          outcome.state === 'succeeded' ? 'instance.action_succeeded' : 'instance.action_failed',
          service.accountId,
          {
            serviceId: action.serviceId,
            serviceName: service.name,
            actionId: action.id,
            type: action.type,
            error,
          },
        ),
      );
      // The system finished it, even when the action began inside the customer's request.
      await this.activity.record(m, {
        accountId: service.accountId,
        action: outcome.state === 'succeeded' ? 'instance.action_succeeded' : 'instance.action_failed',
        entity: { type: 'service', id: action.serviceId },
        status: outcome.state,
        actor: { type: 'system', id: null, name: null },
        details: {
          actionId: action.id,
          type: action.type,
          errorCode: error?.code ?? null,
          errorMessage: error?.message ?? null,
          ...(result && { consistency: result.consistency, sizeBytes: result.sizeBytes }),
        },
      });
      return afterCommit;
    });
    if (afterCommit) await afterCommit();
  }
}

const clip = (note: ActionNote): ActionNote => ({ code: note.code.slice(0, 64), message: note.message.slice(0, 500) });
