import { Injectable, OnModuleInit } from '@nestjs/common';
import { accountActor, ActivityLog, JobQueue, RequestFacts, TransactionRunner } from '@app/core';
import { AccountsService } from '@app/accounts';
import { AccountMail } from '../email/account-mail';
import { AccountTokensRepository } from '../email/account-tokens.repository';
import { anonymousFacts } from '../login/client-family';
import { newSecretToken } from '../tokens/secret-tokens';

const RESET_REQUESTED = 'auth.password-reset-requested';
const RESET_TTL_SECONDS = 3600;

/**
 * Mails a password reset link. A request only queues this job with the address, whether or not an
 * account has it, so the answer and its timing are the same; the worker looks the account up.
 */
@Injectable()
export class PasswordResetLinkJob implements OnModuleInit {
  constructor(
    private readonly jobs: JobQueue,
    private readonly accounts: AccountsService,
    private readonly tokens: AccountTokensRepository,
    private readonly mail: AccountMail,
    private readonly tx: TransactionRunner,
    private readonly activity: ActivityLog,
  ) {}

  onModuleInit(): void {
    // The request's facts travel with the job, so the activity entry says where the request came from.
    this.jobs.work<{ email: string; request?: RequestFacts }>(RESET_REQUESTED, (job) => this.mailResetLink(job.email, job.request));
  }

  async queue(email: string, request?: RequestFacts): Promise<void> {
    await this.jobs.send(RESET_REQUESTED, { email, request }, { retryLimit: 5, retryDelaySeconds: 10, retryBackoff: true });
  }

  private async mailResetLink(email: string, request: RequestFacts | undefined): Promise<void> {
    const account = await this.accounts.findByEmail(email);
    if (!account) return;
    const token = newSecretToken('hpr_');
    await this.tx.run(async (m) => {
      // The newest link is the one that works: an older reset mail, perhaps read by someone else, ends.
      await this.tokens.retire(m, account.id, 'reset_password');
      await this.tokens.create(m, account.id, 'reset_password', account.email, token.hash, RESET_TTL_SECONDS);
      await this.mail.passwordReset(m, account.email, account.name, token.token);
      await this.activity.record(m, {
        accountId: account.id,
        action: 'auth.password_reset_request',
        entity: { type: 'account', id: account.id },
        actor: accountActor(account),
        // Anyone who knows the address asks for a reset.
        request: anonymousFacts(request),
      });
    });
  }
}
