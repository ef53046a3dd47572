import { Injectable } from '@nestjs/common';
import { OnEvent } from '@nestjs/event-emitter';
import { unlinkable } from '@app/core';
import { ServiceMail } from '../instances/service-mail';
import type { InstanceMoveEvent } from '../vps.events';

type Named<N extends InstanceMoveEvent['name']> = Extract<InstanceMoveEvent, { name: N }>;

/**
 * Mails the account's owner before a running VPS is stopped to move to another host and after it
 * is started there (`host:drain`). Sent after COMMIT through the mail queue.
 */
@Injectable()
export class MoveMail {
  constructor(private readonly mail: ServiceMail) {}

  @OnEvent('instance.move_started', { async: true, promisify: true })
  started(event: Named<'instance.move_started'>): Promise<void> {
    const name = unlinkable(event.payload.serviceName);
    return this.mail.send(event.accountId, event.payload.serviceId, `${name} is moving to another host`, [
      `The host ${name} runs on needs maintenance, so ${name} is being shut down now, moved with its disk to another host and started again there.`,
      'Its address, SSH port and data stay the same; it is unreachable for the few minutes the move takes. We will mail you again once it runs.',
    ]);
  }

  @OnEvent('instance.move_finished', { async: true, promisify: true })
  finished(event: Named<'instance.move_finished'>): Promise<void> {
    const name = unlinkable(event.payload.serviceName);
    const running = event.payload.outcome === 'running';
    return this.mail.send(
      event.accountId,
      event.payload.serviceId,
      running ? `${name} is running on its new host` : `${name} is stopped after its move`,
      running
        ? [`${name} was moved to another host and is running again.`]
        : [
            `${name} could not be started again after the maintenance of its host: it is stopped. Start it, or open a support ticket if it does not start.`,
          ],
    );
  }
}
