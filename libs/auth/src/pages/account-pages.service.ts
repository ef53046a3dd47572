import { Injectable } from '@nestjs/common';
import { AppConfig, Page, Problem, RequestFacts } from '@app/core';
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from '../dto/auth.request';
import { EmailVerificationService } from '../email/email-verification.service';
import { PasswordResetService } from '../password/password-reset.service';
import { confirmDonePage, confirmFormPage, confirmLinkFailedPage } from './confirm-email.page';
import { resetDonePage, resetFormPage, ResetErrors, resetLinkFailedPage } from './reset-password.page';

/** A form field or query parameter given once, as text; anything else (absent, repeated) is no value. */
function text(source: unknown, name: string): string {
  const value = source && typeof source === 'object' ? (source as Record<string, unknown>)[name] : undefined;
  return typeof value === 'string' ? value : '';
}

function passwordErrors(password: string, confirmation: string): ResetErrors {
  const errors: ResetErrors = {};
  if (!password) errors.password = 'Enter a new password.';
  else if (password.length < PASSWORD_MIN_LENGTH) errors.password = `The password must have at least ${PASSWORD_MIN_LENGTH} characters.`;
  else if (password.length > PASSWORD_MAX_LENGTH) errors.password = `The password must have at most ${PASSWORD_MAX_LENGTH} characters.`;
  if (!confirmation) errors.confirmPassword = 'Enter the new password again.';
  else if (password && confirmation !== password) errors.confirmPassword = 'The two passwords do not match.';
  return errors;
}

const isInvalidToken = (err: unknown) => err instanceof Problem && err.code === 'invalid_token';

/**
 * The pages a mailed link opens when no dashboard is configured. Showing a form never
 * spends its token; the form's POST does, through the same services as the API routes.
 */
@Injectable()
export class AccountPagesService {
  constructor(
    private readonly passwordReset: PasswordResetService,
    private readonly verification: EmailVerificationService,
    private readonly config: AppConfig,
  ) {}

  async resetForm(query: unknown): Promise<Page> {
    const token = text(query, 'token');
    const email = token && (await this.passwordReset.pendingReset(token));
    return email ? resetFormPage(token, email) : resetLinkFailedPage();
  }

  async reset(form: unknown, client: RequestFacts): Promise<Page> {
    const token = text(form, 'token');
    const email = token && (await this.passwordReset.pendingReset(token));
    if (!email) return resetLinkFailedPage();
    const password = text(form, 'password');
    const errors = passwordErrors(password, text(form, 'confirmPassword'));
    if (Object.keys(errors).length) return resetFormPage(token, email, errors);
    try {
      const done = await this.passwordReset.reset(token, password, client);
      return resetDonePage(done.email, done.revokedKeys, this.config.dashboardUrl);
    } catch (err) {
      // Used by another request between the check above and this one.
      if (isInvalidToken(err)) return resetLinkFailedPage();
      throw err;
    }
  }

  async confirmForm(query: unknown): Promise<Page> {
    const token = text(query, 'token');
    const link = token && (await this.verification.pendingConfirmation(token));
    return link ? confirmFormPage(token, link) : confirmLinkFailedPage();
  }

  async confirm(form: unknown, client: RequestFacts): Promise<Page> {
    const token = text(form, 'token');
    if (!token) return confirmLinkFailedPage();
    try {
      return confirmDonePage(await this.verification.verify(token, client), this.config.dashboardUrl);
    } catch (err) {
      if (isInvalidToken(err)) return confirmLinkFailedPage();
      throw err;
    }
  }
}
