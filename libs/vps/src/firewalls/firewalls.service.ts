import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { AccountsService } from '@app/accounts';
import {
  ActivityAction,
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
import { CreateFirewallRequest, FirewallTargetsRequest, UpdateFirewallRequest } from './dto/firewall.request';
import { FirewallResponse } from './dto/firewall.response';
import { checkRules, FirewallRule } from './firewall-rules';
import { FirewallSyncJob } from './firewall-sync.job';
import { FirewallsRepository, FirewallTarget } from './firewalls.repository';
import './firewall.events';

/** Cloud firewalls: an account's rule sets, applied to its VPSes and enforced by their hypervisors (docs/decisions/firewalls.md). */
@Injectable()
export class FirewallsService {
  constructor(
    private readonly firewalls: FirewallsRepository,
    private readonly sync: FirewallSyncJob,
    private readonly tx: TransactionRunner,
    private readonly accounts: AccountsService,
    private readonly activity: ActivityLog,
    private readonly config: AppConfig,
  ) {}

  async create(caller: Principal, input: CreateFirewallRequest): Promise<FirewallResponse> {
    const { accountId } = caller;
    const rules = this.checked(input.rules ?? []);
    const { firewallsPerAccount } = this.config.network;
    const id = await this.named(input.name, () =>
      this.tx.run(async (m) => {
        await this.accounts.lockForUpdate(m, accountId);
        if ((await this.firewalls.countForAccount(m, accountId)) >= firewallsPerAccount)
          throw Problem.conflict('quota_exceeded', `An account can have at most ${firewallsPerAccount} firewalls; delete one first.`);
        const made = await this.firewalls.insert(m, accountId, input.name, rules);
        await this.record(m, caller, 'firewall.create', made, { name: input.name, rules: rules.length });
        return made;
      }),
    );
    return this.get(accountId, id);
  }

  async list(accountId: string, query: PageQuery): Promise<Paginated<FirewallResponse>> {
    const { rows, total } = await this.firewalls.pageForAccount(accountId, query);
    return paginated(rows.map(FirewallResponse.from), query, total);
  }

  async get(accountId: string, id: string): Promise<FirewallResponse> {
    const row = await this.firewalls.findOneForAccount(accountId, id);
    if (!row) throw Problem.notFound('Firewall');
    return FirewallResponse.from(row);
  }

  /** New rules reach every VPS it is applied to (each back to `pending` until enforced). */
  async update(caller: Principal, id: string, input: UpdateFirewallRequest): Promise<FirewallResponse> {
    const rules = input.rules && this.checked(input.rules);
    await this.named(input.name, () =>
      this.change(caller, id, async (m) => {
        await this.firewalls.update(m, id, { name: input.name, rules });
        if (rules) await this.sync.enqueue(m, await this.firewalls.touchAttachments(m, id));
        const details = { ...(input.name && { name: input.name }), ...(rules && { rules: rules.length }) };
        await this.record(m, caller, 'firewall.update', id, details);
      }),
    );
    return this.get(caller.accountId, id);
  }

  async remove(caller: Principal, id: string): Promise<void> {
    await this.change(caller, id, async (m) => {
      const row = await this.firewalls.findOneForAccount(caller.accountId, id, m);
      if (row!.appliedTo.length)
        throw Problem.conflict(
          'firewall_in_use',
          `The firewall is applied to ${row!.appliedTo.length} VPS(es); remove it from them first.`,
        );
      await this.firewalls.delete(m, id);
      await this.record(m, caller, 'firewall.delete', id, { name: row!.name });
    });
  }

  async applyTo(caller: Principal, id: string, { serviceIds }: FirewallTargetsRequest): Promise<FirewallResponse> {
    await this.change(caller, id, async (m) => {
      this.checkTargets(serviceIds, await this.firewalls.targetsForAccount(m, caller.accountId, serviceIds));
      const attached = await this.firewalls.attach(m, id, serviceIds);
      if (!attached.length) return;
      await this.sync.enqueue(m, attached);
      await this.record(m, caller, 'firewall.apply', id, { serviceIds: attached });
    });
    return this.get(caller.accountId, id);
  }

  async removeFrom(caller: Principal, id: string, { serviceIds }: FirewallTargetsRequest): Promise<FirewallResponse> {
    await this.change(caller, id, async (m) => {
      const detached = await this.firewalls.detach(m, id, serviceIds);
      if (!detached.length) return;
      await this.sync.enqueue(m, detached);
      await this.record(m, caller, 'firewall.remove', id, { serviceIds: detached });
    });
    return this.get(caller.accountId, id);
  }

  /** A terminated VPS leaves every firewall (its machine is gone with its filters). */
  detachTerminated(manager: EntityManager, serviceId: string): Promise<void> {
    return this.firewalls.detachService(manager, serviceId);
  }

  private checked(rules: FirewallRule[]): FirewallRule[] {
    const { firewallRulesMax } = this.config.network;
    if (rules.length > firewallRulesMax)
      throw Problem.conflict('quota_exceeded', `A firewall can have at most ${firewallRulesMax} rules (got ${rules.length}).`);
    return checkRules(rules);
  }

  /** Every id must be a live VPS of the account reached at public addresses; the first that is not is refused. */
  private checkTargets(serviceIds: string[], targets: FirewallTarget[]): void {
    const byId = new Map(targets.map((t) => [t.id, t]));
    for (const serviceId of serviceIds) {
      const target = byId.get(serviceId);
      if (!target || target.type !== 'vps') throw new Problem(404, 'not_found', `Service ${serviceId} is not a VPS of this account.`);
      if (target.status === 'terminated' || target.status === 'cancelled')
        throw Problem.conflict('invalid_state', `Service ${serviceId} is ${target.status}.`);
      if (target.networkMode === 'user')
        throw Problem.conflict(
          'unsupported_network_mode',
          `Service ${serviceId} is reached through a forwarded SSH port (user networking): a firewall cannot be enforced at its hypervisor.`,
        );
    }
  }

  /** A change of the caller's firewall in one transaction, the firewall's row locked (404 when the account has none of this id). */
  private async change(caller: Principal, id: string, work: (m: EntityManager) => Promise<void>): Promise<void> {
    await this.tx.run(async (m) => {
      if (!(await this.firewalls.lockForAccount(m, caller.accountId, id))) throw Problem.notFound('Firewall');
      await work(m);
    });
  }

  private async named<T>(name: string | undefined, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (err) {
      if (isUniqueViolation(err)) throw Problem.conflict('duplicate_name', `The account already has a firewall named "${name}".`);
      throw err;
    }
  }

  private record(m: EntityManager, caller: Principal, action: ActivityAction, id: string, details: Record<string, unknown>) {
    return this.activity.record(m, { accountId: caller.accountId, caller, action, entity: { type: 'firewall', id }, details });
  }
}
