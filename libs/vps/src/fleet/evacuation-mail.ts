import { Injectable } from '@nestjs/common';
import { OnEvent } from '@nestjs/event-emitter';
import { unlinkable } from '@app/core';
import { ServiceMail } from '../instances/service-mail';
import type { InstanceEvacuatedEvent } from '../vps.events';

/**
 * Mails the account's owner when its VPS was evacuated from a dead host: restored from
 * the backup of a given time (what was written since is lost), or rebuilt from its image (its data
 * is lost). Sent after COMMIT through the mail queue.
 */
@Injectable()
export class EvacuationMail {
  constructor(private readonly mail: ServiceMail) {}

  @OnEvent('instance.evacuated', { async: true, promisify: true })
  evacuated(event: InstanceEvacuatedEvent): Promise<void> {
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
    return this.mail.send(event.accountId, p.serviceId, subject, lines);
  }
}
