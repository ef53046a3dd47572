import { Injectable } from '@nestjs/common';
import { AccountsService } from '@app/accounts';
import { AppConfig, customerMail, OutboundMail } from '@app/core';

/** A mail to a VPS's account about that VPS, in the customer mail layout, with a link to the service. Sent through the mail queue. */
@Injectable()
export class ServiceMail {
  constructor(
    private readonly accounts: AccountsService,
    private readonly outbound: OutboundMail,
    private readonly config: AppConfig,
  ) {}

  async send(accountId: string, serviceId: string, subject: string, lines: string[]): Promise<void> {
    const account = await this.accounts.findById(accountId);
    if (!account) return;
    const action = { label: 'The service', url: `${this.config.publicUrl}/api/services/${serviceId}` };
    await this.outbound.queue(customerMail(account.email, account.name, { subject, lines, action }));
  }
}
