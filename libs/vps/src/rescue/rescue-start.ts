import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { ActivityLog, AppConfig, Principal, Problem } from '@app/core';
import { AccountSshKeys } from '@app/ssh-keys';
import { ImagesRepository } from '../images/images.repository';
import { ActionRow, InstanceActionsRepository } from '../actions/instance-actions.repository';
import { planAction } from '../instances/power-state/power-state-machine';
import { sha512Crypt } from './root-password/password-hash';
import { rootPassword } from './root-password/root-password';
import { VpsInstancesRepository } from '../instances/vps-instances.repository';
import type { VpsState } from '../instances/vps-states';
import type { PowerState } from '../vps.types';
import { RescueRow, VpsRescuesRepository } from './vps-rescues.repository';
import { VpsHostKeys } from '../host-keys/vps-host-keys';

export type LockedVps = VpsState & { powerState: PowerState };

/** A rescue begun: its action, when it ends by itself, and root's password, which exists only in this answer. */
export interface RescueBegun {
  action: ActionRow;
  rescue: RescueRow;
  rootPassword: string;
}

/**
 * The decisions and writes of rescue and unrescue, inside the caller's transaction that
 * holds the service row lock: the action with what it boots, the rescue's row, the power state, the
 * activity entry. Root's password is made here and leaves only in the answer: the action keeps its
 * SHA-512-crypt hash for the seed, and no log line, activity entry or webhook has it.
 */
@Injectable()
export class RescueStart {
  constructor(
    private readonly actions: InstanceActionsRepository,
    private readonly instances: VpsInstancesRepository,
    private readonly rescues: VpsRescuesRepository,
    private readonly images: ImagesRepository,
    private readonly keys: AccountSshKeys,
    private readonly activity: ActivityLog,
    private readonly config: AppConfig,
    private readonly hostKeys: VpsHostKeys,
  ) {}

  async rescue(m: EntityManager, caller: Principal, vps: LockedVps, sshKeyIds: 'all' | string[]): Promise<RescueBegun> {
    const { accountId } = caller;
    // The request's own fault (another account's key) comes before the machine's state.
    const keys = await this.keys.keysFor(m, accountId, sshKeyIds);
    if (await this.rescues.find(m, vps.id))
      throw Problem.conflict('invalid_state', 'The instance is in rescue mode already; unrescue it first to begin a new rescue.');
    await this.plan(m, vps, 'rescue');
    const image = await this.images.findRescue(m, this.config.rescue.image);
    if (!image) throw Problem.conflict('invalid_state', 'Rescue mode is not available: no rescue system is set up. Open a support ticket.');
    const { network } = await this.instances.guestOf(m, vps.id);
    const password = rootPassword();
    const boot = {
      imageId: image.id,
      imageFormat: image.format,
      diskGb: image.min_disk_gb,
      seed: {
        instanceId: `iid-rescue-${randomUUID()}`,
        hostname: 'rescue',
        sshKeys: keys.map((k) => k.publicKey),
        rootPasswordHash: sha512Crypt(password),
      },
    };
    await this.hostKeys.renewRescue(m, vps.id);
    const action = await this.actions.insertRunning(m, vps.id, 'rescue', vps.powerState, { rescue: { boot, network } });
    await this.instances.setPowerState(m, vps.id, 'starting');
    const rescue = await this.rescues.insert(m, vps.id, image.id, action.id, this.config.rescue.hours);
    await this.activity.record(m, {
      accountId,
      caller,
      action: 'instance.rescue',
      entity: { type: 'service', id: vps.id },
      details: { actionId: action.id, image: image.slug, sshKeyIds: keys.map((k) => k.id), endsAt: rescue.ends_at },
    });
    return { action, rescue, rootPassword: password };
  }

  /** The customer's unrescue (`caller`), or the end of a rescue that ran out (no caller: the system). */
  async unrescue(m: EntityManager, caller: Principal | null, vps: LockedVps): Promise<ActionRow> {
    if (!(await this.rescues.find(m, vps.id))) throw Problem.conflict('invalid_state', 'The instance is not in rescue mode.');
    await this.plan(m, vps, 'unrescue');
    const { network } = await this.instances.guestOf(m, vps.id);
    const action = await this.actions.insertRunning(m, vps.id, 'unrescue', vps.powerState, { unrescue: { network } });
    await this.instances.setPowerState(m, vps.id, 'starting');
    await this.activity.record(m, {
      accountId: vps.accountId,
      ...(caller ? { caller } : { actor: { type: 'system', id: null, name: null } }),
      action: 'instance.unrescue',
      entity: { type: 'service', id: vps.id },
      details: { actionId: action.id, reason: caller ? 'unrescue' : 'expired' },
    });
    return action;
  }

  private async plan(m: EntityManager, vps: LockedVps, type: 'rescue' | 'unrescue'): Promise<void> {
    const actionRunning = await this.actions.hasRunning(m, vps.id);
    const plan = planAction({ serviceStatus: vps.status, powerState: vps.powerState, actionRunning }, type);
    if (!plan.ok) throw Problem.conflict(plan.code, plan.detail);
  }
}
