import { Injectable } from '@nestjs/common';
import { OnEvent } from '@nestjs/event-emitter';
import { unlinkable } from '@app/core';
import { ServiceMail } from '../instances/service-mail';
import type { InstanceAccessEvent } from '../vps.events';

type Named<N extends InstanceAccessEvent['name']> = Extract<InstanceAccessEvent, { name: N }>;

/**
 * Mails the account's owner when someone gets a way into one of its VPSes: a
 * rescue begins or ends, root's password is reset. Sent after COMMIT through the mail queue, so
 * the request never waits for the mail server. No password is ever in a mail.
 */
@Injectable()
export class AccessMail {
  constructor(private readonly mail: ServiceMail) {}

  @OnEvent('instance.rescue_started', { async: true, promisify: true })
  rescueStarted(event: Named<'instance.rescue_started'>): Promise<void> {
    const p = { ...event.payload, serviceName: unlinkable(event.payload.serviceName) };
    return this.mail.send(event.accountId, p.serviceId, `${p.serviceName} is booting into rescue mode`, [
      `${p.serviceName} was shut down and is booting the rescue system, with its own disk attached as /dev/vdb (not mounted). Log in as root with the SSH keys chosen for the rescue, or on the console with the password shown when it was asked for.`,
      `The rescue ends by itself at ${p.endsAt}, when ${p.serviceName} boots its own disk again; POST /api/services/${p.serviceId}/instance/unrescue ends it sooner.`,
      'If this was not you, end the rescue, revoke the API keys you do not recognise and change your password.',
    ]);
  }

  @OnEvent('instance.rescue_ended', { async: true, promisify: true })
  rescueEnded(event: Named<'instance.rescue_ended'>): Promise<void> {
    const p = { ...event.payload, serviceName: unlinkable(event.payload.serviceName) };
    const why = p.reason === 'expired' ? 'Its rescue time is over, so' : 'As asked,';
    return this.mail.send(event.accountId, p.serviceId, `${p.serviceName} is leaving rescue mode`, [
      `${why} ${p.serviceName} is booting its own disk again; the rescue system and its disk are removed.`,
    ]);
  }

  @OnEvent('instance.password_reset', { async: true, promisify: true })
  passwordReset(event: Named<'instance.password_reset'>): Promise<void> {
    const p = { ...event.payload, serviceName: unlinkable(event.payload.serviceName) };
    return this.mail.send(event.accountId, p.serviceId, `The root password of ${p.serviceName} was reset`, [
      `A new password was set for root in ${p.serviceName}; the old one no longer works.`,
      'If this was not you, reset it again, revoke the API keys you do not recognise and change your password.',
    ]);
  }
}
