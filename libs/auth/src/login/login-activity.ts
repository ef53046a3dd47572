import { Injectable, Logger } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { AccountsService, AccountView } from '@app/accounts';
import { accountActor, ActivityLog, ActivityThrottle, OverflowSummary, RequestFacts, TransactionRunner } from '@app/core';
import { anonymousFacts } from './client-family';

/**
 * Failed password and code checks recorded one by one per targeted account and minute, at most
 * (the attempt is refused regardless); past it, one summary entry per minute counts the rest.
 */
export const FAILED_LOGIN_ENTRIES_PER_MINUTE = 10;
const WINDOW_MS = 60_000;

export type LoginFailure = 'wrong_password' | 'wrong_two_factor_code';
/** Where a signed-in caller's current password was checked. */
export type PasswordCheckOperation = 'password_change' | 'email_change' | 'two_factor_enable' | 'two_factor_disable';

/** A failed sign-in (`auth.login_failed`), or a wrong current password on a signed-in route (`auth.password_check_failed`). */
export type AuthFailure =
  | { action: 'auth.login_failed'; reason: LoginFailure }
  | { action: 'auth.password_check_failed'; reason: 'wrong_password'; operation: PasswordCheckOperation };

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

  async succeeded(m: EntityManager, account: AccountView, sessionId: string, secondFactor: boolean, request?: RequestFacts): Promise<void> {
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
  async failed(target: { email: string } | { accountId: string }, failure: AuthFailure, request?: RequestFacts): Promise<void> {
    try {
      const account = 'email' in target ? await this.accounts.findByEmail(target.email) : await this.accounts.findById(target.accountId);
      if (!account) return;
      const admitted = this.throttle.admit(`auth.failed:${account.id}`, FAILED_LOGIN_ENTRIES_PER_MINUTE, request?.ip, WINDOW_MS);
      if (!admitted.record) return await this.summarize(account, admitted.summary);
      const { action, ...details } = failure;
      await this.tx.run((m) =>
        this.activity.record(m, {
          accountId: account.id,
          action,
          entity: { type: 'account', id: account.id },
          status: 'failed',
          actor: accountActor(account),
          request: anonymousFacts(request),
          details,
        }),
      );
    } catch (err) {
      // The caller refuses the attempt either way; a failed recording must not turn it into a 500.
      this.logger.warn(`Failed sign-in not recorded: ${(err as Error).message}`);
    }
  }

  /**
   * Past the cap: one `auth.failures_summary` entry per account and minute with the count and the
   * distinct addresses, written at the first refused entry and brought up to date after each
   * further one (one after another per summary), so one address's flood cannot hide another's.
   */
  private summarize(account: AccountView, summary: OverflowSummary): Promise<void> {
    const write = summary.chain.then(() =>
      this.tx.run(async (m) => {
        const details = summary.details(WINDOW_MS);
        if (summary.entryId) return this.activity.amendDetails(m, account.id, summary.entryId, details);
        const entry = await this.activity.record(m, {
          accountId: account.id,
          action: 'auth.failures_summary',
          entity: { type: 'account', id: account.id },
          status: 'failed',
          actor: accountActor(account),
          details,
        });
        summary.entryId = entry.id;
      }),
    );
    summary.chain = write.catch(() => undefined);
    return write;
  }
}
