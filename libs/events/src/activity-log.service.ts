import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { AccountsService } from '@app/accounts';
import { ActivityEntry, ActivityHook, ActivityInput, ActivityLog, Actor, Principal } from '@app/core';
import { ActivityRepository } from './activity.repository';
import { assertNoSecrets } from './secret-details';

export const SYSTEM_ACTOR: Actor = { type: 'system', id: null, name: null };

/**
 * The ActivityLog port on the activity_events table: the entry, then every registered hook, all
 * with the caller's manager, so they commit or roll back with the change they describe. The actor
 * and the request facts come from the input's caller (or its public request), else the system.
 */
@Injectable()
export class ActivityLogService extends ActivityLog {
  private readonly hooks: ActivityHook[] = [];

  constructor(
    private readonly repository: ActivityRepository,
    private readonly accounts: AccountsService,
  ) {
    super();
  }

  async record(manager: EntityManager, input: ActivityInput): Promise<ActivityEntry> {
    const details = input.details ?? {};
    assertNoSecrets(input.action, details);
    const facts = input.request ?? input.caller?.request;
    const entry = await this.repository.insert(manager, {
      accountId: input.accountId,
      action: input.action,
      entity: input.entity,
      actor: input.actor ?? (input.caller ? await this.actorOf(manager, input.caller) : SYSTEM_ACTOR),
      ip: facts?.ip ?? null,
      userAgent: facts?.userAgent ?? null,
      requestId: facts?.requestId ?? null,
      status: input.status ?? 'succeeded',
      details,
    });
    for (const hook of this.hooks) await hook(manager, entry);
    return entry;
  }

  async amendDetails(manager: EntityManager, accountId: string, entryId: string, details: Record<string, unknown>): Promise<void> {
    assertNoSecrets('amended entry', details);
    await this.repository.replaceDetails(manager, accountId, entryId, details);
  }

  onRecorded(hook: ActivityHook): void {
    this.hooks.push(hook);
  }

  /** The API key by its name, or the login by its name; with the member who acted and their address. */
  private async actorOf(manager: EntityManager, principal: Principal): Promise<Actor> {
    const member = { memberId: principal.memberId, email: principal.email };
    if (principal.kind === 'api_key') {
      return { type: 'api_key', id: principal.credentialId, name: principal.name ?? null, ...member, keyId: principal.credentialId };
    }
    const login = await this.accounts.findById(principal.loginId, manager);
    return { type: 'account', id: principal.loginId, name: login ? login.name || login.email : null, ...member, keyId: null };
  }
}
