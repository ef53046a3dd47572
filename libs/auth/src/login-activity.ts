import { Injectable, Logger } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { Account, AccountsService } from '@app/accounts';
import { accountActor, ActivityLog, ActivityThrottle, RequestFacts, TransactionRunner } from '@app/core';

/** Failed sign-ins recorded per targeted account and minute, at most (the sign-in is refused regardless). */
export const FAILED_LOGIN_ENTRIES_PER_MINUTE = 10;

export type LoginFailure = 'wrong_password' | 'wrong_two_factor_code';

/** Sign-ins in the activity log: a success in the session's transaction, a failure on its own. */
@Injectable()
export class LoginActivity {
  private readonly logger = new Logger('Activity');

  constructor(
    private readonly activity: ActivityLog,
    private readonly accounts: AccountsService,
    private readonly throttle: ActivityThrottle,
    private readonly tx: TransactionRunner,
  ) {}

  async succeeded(m: EntityManager, account: Account, sessionId: string, secondFactor: boolean, request?: RequestFacts): Promise<void> {
    await this.activity.record(m, {
      accountId: account.id,
      action: 'auth.login',
      entity: { type: 'session', id: sessionId },
      actor: accountActor(account),
      request,
      details: { secondFactor },
    });
  }

  /**
   * Against the account the attempt targeted (none for an unknown email), outside the refused
   * transaction, and bounded per account: wrong passwords cannot become a write amplifier.
   */
  async failed(target: { email: string } | { accountId: string }, reason: LoginFailure, request?: RequestFacts): Promise<void> {
    try {
      const account = 'email' in target ? await this.accounts.findByEmail(target.email) : await this.accounts.findById(target.accountId);
      if (!account || !this.throttle.allow(`auth.login_failed:${account.id}`, FAILED_LOGIN_ENTRIES_PER_MINUTE)) return;
      await this.tx.run((m) =>
        this.activity.record(m, {
          accountId: account.id,
          action: 'auth.login_failed',
          entity: { type: 'account', id: account.id },
          status: 'failed',
          actor: accountActor(account),
          request,
          details: { reason },
        }),
      );
    } catch (err) {
      // The caller answers 401 either way; a failed recording must not turn it into a 500.
      this.logger.warn(`Failed sign-in not recorded: ${(err as Error).message}`);
    }
  }
}
