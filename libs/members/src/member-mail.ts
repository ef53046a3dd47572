import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { AppConfig, customerMail, OutboundMail, Role } from '@app/core';
import { ROLE_NAMES } from './role-names';

/** The team's mails: an invitation to its address, and every member change to the account's owners. */
@Injectable()
export class MemberMail {
  constructor(
    private readonly outbound: OutboundMail,
    private readonly config: AppConfig,
  ) {}

  invitation(m: EntityManager, to: string, account: string, inviter: string, role: Role, token: string, expiresAt: Date): Promise<void> {
    return this.outbound.queue(
      customerMail(to, to, {
        subject: `You are invited to the hosting account ${account}`,
        lines: [
          `${inviter} invites you to join the hosting account ${account} as ${ROLE_NAMES[role]}.`,
          `To accept, sign in with this address (${to}); if you have no login yet, register one with it and confirm the address first. The link works once, until ${expiresAt.toUTCString()}.`,
          `From a terminal: hostctl invitations accept ${token}`,
        ],
        action: { label: 'Accept the invitation', url: this.link(token) },
      }),
      m,
    );
  }

  /** To each owner: who changed what on the team, so nobody is added or removed unnoticed. */
  async memberChanged(m: EntityManager, owners: { email: string; name: string }[], account: string, what: string): Promise<void> {
    for (const owner of owners) {
      await this.outbound.queue(
        customerMail(owner.email, owner.name, {
          subject: `Team change on ${account}`,
          lines: [what, 'If you do not recognise this change, review the members of the account and its activity log.'],
        }),
        m,
      );
    }
  }

  roleName(role: Role): string {
    return ROLE_NAMES[role];
  }

  /** The dashboard's page when DASHBOARD_URL names one, otherwise the API's own page under PUBLIC_URL/account. */
  private link(token: string): string {
    const base = this.config.dashboardUrl
      ? `${this.config.dashboardUrl}/accept-invitation`
      : `${this.config.publicUrl}/account/accept-invitation`;
    return `${base}?token=${encodeURIComponent(token)}`;
  }
}
