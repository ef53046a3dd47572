import { Injectable } from '@nestjs/common';
import { RequestFacts } from '@app/core';
import { AccountTokensRepository } from '../email/account-tokens.repository';
import { AcceptedResponse } from '../dto/accepted.response';
import { hashSecretToken } from '../tokens/secret-tokens';
import { PasswordResetCompletion, ResetOutcome } from './password-reset-completion';
import { PasswordResetLinkJob } from './password-reset-link.job';

export type { ResetOutcome } from './password-reset-completion';

const ACCEPTED: AcceptedResponse = { message: 'If an account has this email address, a reset link is on its way.' };

/** Forgot/reset password: the link is mailed by PasswordResetLinkJob, a reset through it is PasswordResetCompletion. */
@Injectable()
export class PasswordResetService {
  constructor(
    private readonly links: PasswordResetLinkJob,
    private readonly tokens: AccountTokensRepository,
    private readonly completion: PasswordResetCompletion,
  ) {}

  async requestReset(email: string, request?: RequestFacts): Promise<AcceptedResponse> {
    await this.links.queue(email, request);
    return ACCEPTED;
  }

  /** The address a reset link is for, while the link still works; it stays unused. */
  async pendingReset(token: string): Promise<string | null> {
    return (await this.tokens.findLive(hashSecretToken(token), ['reset_password']))?.email ?? null;
  }

  reset(token: string, newPassword: string, request?: RequestFacts): Promise<ResetOutcome> {
    return this.completion.reset(token, newPassword, request);
  }
}
