import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { ActivityInput, ActivityLog, Principal, Publish } from '@app/core';
import type { AccountView } from '@app/accounts';
import { AccountMail } from '../email/account-mail';
import { SessionsService } from '../sessions/sessions.service';
import { MfaRepository } from './mfa.repository';

type By = Pick<ActivityInput, 'caller' | 'actor' | 'details'>;

/**
 * The second factor's state changes, each one step inside the caller's transaction: written,
 * recorded, and (on and off) every session but `keep` ended and the owner told by mail.
 */
@Injectable()
export class MfaChanges {
  constructor(
    private readonly repository: MfaRepository,
    private readonly sessions: SessionsService,
    private readonly mail: AccountMail,
    private readonly activity: ActivityLog,
  ) {}

  async setUp(m: EntityManager, accountId: string, secretSealed: string, caller: Principal): Promise<void> {
    await this.repository.savePending(m, accountId, secretSealed);
    await this.record(m, accountId, 'two_factor.setup', { caller });
  }

  async turnOn(
    m: EntityManager,
    publish: Publish,
    account: AccountView,
    recoveryCodeHashes: string[],
    keep: string,
    caller: Principal,
  ): Promise<void> {
    await this.repository.enable(m, account.id, recoveryCodeHashes);
    await this.sessions.endAllExcept(m, publish, account.id, keep);
    await this.mail.notice(m, account.email, account.name, 'mfa_enabled');
    await this.record(m, account.id, 'two_factor.enable', { caller });
  }

  async turnOff(m: EntityManager, publish: Publish, account: AccountView, keep: string | null, by: By): Promise<void> {
    await this.repository.disable(m, account.id);
    await this.sessions.endAllExcept(m, publish, account.id, keep);
    await this.mail.notice(m, account.email, account.name, 'mfa_disabled');
    await this.record(m, account.id, 'two_factor.disable', by);
  }

  private async record(m: EntityManager, accountId: string, action: ActivityInput['action'], by: By): Promise<void> {
    await this.activity.record(m, { accountId, action, entity: { type: 'account', id: accountId }, ...by });
  }
}
