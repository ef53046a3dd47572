import { Injectable } from '@nestjs/common';
import { OnEvent } from '@nestjs/event-emitter';
import { AccountsService } from '@app/accounts';
import { AppConfig, escapeHtml, OutboundMail, unlinkable } from '@app/core';
import type { InstanceMoveEvent } from '../vps.events';

type Named<N extends InstanceMoveEvent['name']> = Extract<InstanceMoveEvent, { name: N }>;

/**
 * Mails the account's owner before a running VPS is stopped to move to another host and after it
 * is started there (issue 40, `host:drain`). Sent after COMMIT through the mail queue.
 */
@Injectable()
export class MoveMail {
  constructor(
    private readonly accounts: AccountsService,
    private readonly outbound: OutboundMail,
    private readonly config: AppConfig,
  ) {}

  @OnEvent('instance.move_started', { async: true, promisify: true })
  started(event: Named<'instance.move_started'>): Promise<void> {
    const name = unlinkable(event.payload.serviceName);
    return this.send(event.accountId, `${name} is moving to another host`, event.payload.serviceId, [
      `The host ${name} runs on needs maintenance, so ${name} is being shut down now, moved with its disk to another host and started again there.`,
      'Its address, SSH port and data stay the same; it is unreachable for the few minutes the move takes. We will mail you again once it runs.',
    ]);
  }

  @OnEvent('instance.move_finished', { async: true, promisify: true })
  finished(event: Named<'instance.move_finished'>): Promise<void> {
    const name = unlinkable(event.payload.serviceName);
    const running = event.payload.outcome === 'running';
    return this.send(
      event.accountId,
      running ? `${name} is running on its new host` : `${name} is stopped after its move`,
      event.payload.serviceId,
      running
        ? [`${name} was moved to another host and is running again.`]
        : [
            `${name} could not be started again after the maintenance of its host: it is stopped. Start it, or open a support ticket if it does not start.`,
          ],
    );
  }

  private async send(accountId: string, subject: string, serviceId: string, lines: string[]): Promise<void> {
    const account = await this.accounts.findById(accountId);
    if (!account) return;
    const greeting = `Hello ${unlinkable(account.name)},`;
    const link = `${this.config.publicUrl}/api/services/${serviceId}`;
    const text = [greeting, '', ...lines.flatMap((l) => [l, '']), `The service: ${link}`, '', '-- Hosting Account'].join('\n');
    const html = [
      '<!doctype html><html><body style="font-family: sans-serif">',
      `<p>${escapeHtml(greeting)}</p>`,
      ...lines.map((l) => `<p>${escapeHtml(l)}</p>`),
      '<p>-- Hosting Account</p></body></html>',
    ].join('\n');
    await this.outbound.queue({ to: account.email, subject, text, html });
  }
}
