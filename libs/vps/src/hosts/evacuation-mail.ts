import { Injectable } from '@nestjs/common';
import { OnEvent } from '@nestjs/event-emitter';
import { AccountsService } from '@app/accounts';
import { AppConfig, escapeHtml, OutboundMail, unlinkable } from '@app/core';
import type { InstanceEvacuatedEvent } from '../vps.events';

/**
 * Mails the account's owner when its VPS was evacuated from a dead host (issue 40): restored from
 * the backup of a given time (what was written since is lost), or rebuilt from its image (its data
 * is lost). Sent after COMMIT through the mail queue.
 */
@Injectable()
export class EvacuationMail {
  constructor(
    private readonly accounts: AccountsService,
    private readonly outbound: OutboundMail,
    private readonly config: AppConfig,
  ) {}

  @OnEvent('instance.evacuated', { async: true, promisify: true })
  async evacuated(event: InstanceEvacuatedEvent): Promise<void> {
    const account = await this.accounts.findById(event.accountId);
    if (!account) return;
    const p = event.payload;
    const name = unlinkable(p.serviceName);
    const how =
      p.outcome === 'restored'
        ? `${name} was restored on another host from its backup of ${p.backupAt}. Anything written to its disk after that backup is lost.`
        : `${name} had no backup, so it was rebuilt on another host from image ${unlinkable(p.image ?? '')}: the data on its disk is lost, and root's SSH keys are all of your account's keys.`;
    const lines = [
      `The server that ran ${name} stopped answering and could not be brought back.`,
      how,
      p.powerState === 'running' ? `${name} is running again.` : `${name} is stopped, as it was; start it when you need it.`,
    ];
    const subject =
      p.outcome === 'restored'
        ? `${name} was restored from a backup on another host`
        : `${name} was rebuilt from its image on another host`;
    const greeting = `Hello ${unlinkable(account.name)},`;
    const link = `${this.config.publicUrl}/api/services/${p.serviceId}`;
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
