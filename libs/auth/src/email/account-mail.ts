import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { AppConfig, customerMail, CustomerMail, OutboundMail } from '@app/core';

type AccountPage = 'reset-password' | 'confirm-email';
const DASHBOARD_PATHS: Record<AccountPage, string> = { 'reset-password': '/reset-password', 'confirm-email': '/verify-email' };

/** The account mails (text and HTML), with links to the account pages, queued through OutboundMail. */
@Injectable()
export class AccountMail {
  constructor(
    private readonly outbound: OutboundMail,
    private readonly config: AppConfig,
  ) {}

  verifyEmail(m: EntityManager, to: string, name: string, token: string): Promise<void> {
    return this.send(m, to, name, {
      subject: 'Confirm your email address',
      lines: [`Confirm that ${to} is your address. The link works once, for 24 hours.`],
      action: { label: 'Confirm email address', url: this.link('confirm-email', token) },
    });
  }

  confirmNewEmail(m: EntityManager, to: string, name: string, token: string): Promise<void> {
    return this.send(m, to, name, {
      subject: 'Confirm your new email address',
      lines: [`You asked to use ${to} for your account. It replaces the old address once you confirm. The link works once, for 24 hours.`],
      action: { label: 'Confirm new address', url: this.link('confirm-email', token) },
    });
  }

  emailChangeRequested(m: EntityManager, to: string, name: string, newEmail: string): Promise<void> {
    return this.send(m, to, name, {
      subject: 'Your account email is being changed',
      lines: [
        `Someone signed in to your account asked to change its email to ${newEmail}.`,
        'If this was not you, reset your password now.',
      ],
    });
  }

  passwordReset(m: EntityManager, to: string, name: string, token: string): Promise<void> {
    return this.send(m, to, name, {
      subject: 'Reset your password',
      lines: [
        'Someone asked to reset the password of your account. If it was not you, ignore this mail.',
        'The link works once, for 1 hour.',
      ],
      action: { label: 'Choose a new password', url: this.link('reset-password', token) },
    });
  }

  /** After a reset through the mailed link: what it ended, so the owner knows what to set up again. */
  passwordResetNotice(m: EntityManager, to: string, name: string, revokedKeys: number): Promise<void> {
    const keys =
      revokedKeys === 0
        ? 'The account had no API keys to revoke'
        : `${revokedKeys} API key${revokedKeys === 1 ? ' was' : 's were'} revoked`;
    return this.send(m, to, name, {
      subject: 'Your password was reset',
      lines: [
        'The password of your account was reset and every session was signed out.',
        `In case someone else had access to the account: ${keys}, and every webhook endpoint was disabled. Create new keys where you need them, and turn on again only the webhooks you recognise.`,
        'If this was not you, reset your password and contact support.',
      ],
    });
  }

  /** To the owner of an address another account asked to move to: no link, nothing changes for them. */
  emailInUseNotice(m: EntityManager, to: string, name: string): Promise<void> {
    return this.send(m, to, name, {
      subject: 'Someone tried to use your email address',
      lines: [
        `Someone signed in to another account asked to change its email to ${to}, which is the address of your account. Nothing was changed: the address stays with your account.`,
        'If it was you, sign in with this address instead. If not, you need not do anything.',
      ],
    });
  }

  notice(m: EntityManager, to: string, name: string, what: 'mfa_enabled' | 'mfa_disabled'): Promise<void> {
    const notices = {
      mfa_enabled: {
        subject: 'Two-factor sign-in is on',
        line: 'Two-factor sign-in was turned on for your account; other sessions were signed out.',
      },
      mfa_disabled: {
        subject: 'Two-factor sign-in is off',
        line: 'Two-factor sign-in was turned off for your account; other sessions were signed out.',
      },
    }[what];
    return this.send(m, to, name, {
      subject: notices.subject,
      lines: [notices.line, 'If this was not you, reset your password and contact support.'],
    });
  }

  /**
   * The dashboard's page when DASHBOARD_URL names one (it takes `/reset-password` and
   * `/verify-email`), otherwise the API's own page under PUBLIC_URL/account.
   */
  private link(page: AccountPage, token: string): string {
    const dashboard = this.config.dashboardUrl;
    const base = dashboard ? `${dashboard}${DASHBOARD_PATHS[page]}` : `${this.config.publicUrl}/account/${page}`;
    return `${base}?token=${encodeURIComponent(token)}`;
  }

  private send(m: EntityManager, to: string, name: string, template: CustomerMail): Promise<void> {
    return this.outbound.queue(customerMail(to, name, template), m);
  }
}
