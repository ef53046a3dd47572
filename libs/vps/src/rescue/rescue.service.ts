import { Injectable } from '@nestjs/common';
import { OnEvent } from '@nestjs/event-emitter';
import { EntityManager } from 'typeorm';
import { domainEvent, isUniqueViolation, Principal, Problem, Publish, TransactionRunner } from '@app/core';
import { InstanceActionResponse } from '../actions/dto/instance-action.response';
import { RescueActionResponse } from './dto/rescue-action.response';
import { InstanceActionJob } from '../actions/instance-action.job';
import { ActionRow } from '../actions/instance-actions.repository';
import { PowerStateSync } from '../instances/power-state/power-state-sync';
import { isVps, notAVps, VpsState, VpsStates } from '../instances/vps-states';
import type { InstanceAccessEvent, InstanceActionFinishedEvent } from '../vps.events';
import { LockedVps, RescueStart } from './rescue-start';
import { VpsRescuesRepository } from './vps-rescues.repository';

/**
 * Rescue mode: POST .../instance/rescue and .../unrescue, and the end of rescues that ran
 * out (RescueExpiryJob). Like the power actions: decided under the service row lock, driven by the
 * action's job, which is woken after COMMIT.
 */
@Injectable()
export class RescueService {
  constructor(
    private readonly states: VpsStates,
    private readonly start: RescueStart,
    private readonly rescues: VpsRescuesRepository,
    private readonly tx: TransactionRunner,
    private readonly actionJob: InstanceActionJob,
    private readonly sync: PowerStateSync,
  ) {}

  async rescue(caller: Principal, serviceId: string, sshKeyIds: 'all' | string[]): Promise<RescueActionResponse> {
    await this.sync.refreshForAccount(caller.accountId, serviceId);
    const begun = await this.locked(caller.accountId, serviceId, async (m, vps, publish) => {
      const begun = await this.start.rescue(m, caller, vps, sshKeyIds);
      publish(
        domainEvent<InstanceAccessEvent>('instance.rescue_started', vps.accountId, {
          serviceId,
          serviceName: vps.name,
          actionId: begun.action.id,
          endsAt: begun.rescue.ends_at,
        }),
      );
      return begun;
    });
    return { ...InstanceActionResponse.fromRow(begun.action), rootPassword: begun.rootPassword, rescueEndsAt: begun.rescue.ends_at };
  }

  async unrescue(caller: Principal, serviceId: string): Promise<InstanceActionResponse> {
    await this.sync.refreshForAccount(caller.accountId, serviceId);
    const action = await this.locked(caller.accountId, serviceId, (m, vps, publish) => this.end(m, caller, vps, publish));
    return InstanceActionResponse.fromRow(action);
  }

  /** The expiry job's step for one VPS: false when it is no longer due (unrescued, busy, or not active). */
  async expire(serviceId: string): Promise<boolean> {
    const action = await this.tx
      .run(async (m, publish) => {
        const vps = await this.states.lockById(m, serviceId);
        const rescue = isVps(vps) ? await this.rescues.find(m, serviceId) : null;
        if (!isVps(vps) || !rescue || new Date(rescue.ends_at).getTime() > Date.now()) return null;
        const ended = await this.end(m, null, { ...vps, powerState: vps.powerState }, publish).catch((err: unknown) => {
          if (err instanceof Problem) return null; // busy or not active: the next round looks again
          throw err;
        });
        if (ended) await this.actionJob.enqueue(m, ended.id);
        return ended;
      })
      .catch(inProgress);
    return !!action;
  }

  /** The rescue is over once the VPS booted its own disk again. */
  @OnEvent('instance.action_succeeded', { async: true, promisify: true })
  async unrescued(event: InstanceActionFinishedEvent): Promise<void> {
    if (event.payload.type !== 'unrescue') return;
    await this.tx.run((m) => this.rescues.remove(m, event.payload.serviceId));
  }

  private async end(m: EntityManager, caller: Principal | null, vps: LockedVps, publish: Publish): Promise<ActionRow> {
    const action = await this.start.unrescue(m, caller, vps);
    publish(
      domainEvent<InstanceAccessEvent>('instance.rescue_ended', vps.accountId, {
        serviceId: vps.id,
        serviceName: vps.name,
        actionId: action.id,
        reason: caller ? 'unrescue' : 'expired',
      }),
    );
    return action;
  }

  private async locked<T extends { action: ActionRow } | ActionRow>(
    accountId: string,
    serviceId: string,
    work: (m: EntityManager, vps: LockedVps, publish: Publish) => Promise<T>,
  ): Promise<T> {
    const result = await this.tx
      .run(async (m, publish) => {
        const service: VpsState | null = await this.states.lockFor(m, accountId, serviceId);
        if (!service) throw Problem.notFound('Service');
        if (!isVps(service)) throw notAVps();
        const result = await work(m, { ...service, powerState: service.powerState }, publish);
        await this.actionJob.enqueue(m, 'action' in result ? result.action.id : result.id);
        return result;
      })
      .catch(inProgress);
    return result;
  }
}

function inProgress(err: unknown): never {
  if (isUniqueViolation(err, 'instance_actions_one_running_idx')) {
    throw Problem.conflict('action_in_progress', 'Another action on this instance is still running.');
  }
  throw err;
}
