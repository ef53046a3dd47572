import { Injectable } from '@nestjs/common';
import { OnEvent } from '@nestjs/event-emitter';
import { unlinkable } from '@app/core';
import { ServiceMail } from '../../instances/service-mail';
import type { InstanceEvacuatedEvent, InstanceMoveEvent } from '../../vps.events';

type Named<N extends InstanceMoveEvent['name']> = Extract<InstanceMoveEvent, { name: N }>;

/**
 * Mails the account's owner about a relocation of its VPS: before a running VPS is stopped for
 * its disk to be copied to another host and after it is started there (`host:drain --cold`,
 * `service:move --stop`), once after a running VPS was moved live (`host:drain`, `service:move --live`), and once one whose host died was made again elsewhere, restored from the backup of a
 * given time (what was written since is lost) or rebuilt from its image (its data is lost).
 * Sent after COMMIT through the mail queue.
 */
@Injectable()
export class RelocationMail {
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
      running
        ? event.payload.live
          ? `${name} was moved to another host, no action needed`
          : `${name} is running on its new host`
        : `${name} is stopped after its move`,
      running
        ? event.payload.live
          ? [
              `${name} was moved to another host while it ran, for maintenance of the host it ran on. No action is needed.`,
              'Its processes kept running; its address, SSH port and data are as they were. It paused for a moment at the switch-over.',
            ]
          : [`${name} was moved to another host and is running again.`]
        : [
            `${name} could not be started again after the maintenance of its host: it is stopped. Start it, or open a support ticket if it does not start.`,
          ],
    );
  }

  @OnEvent('instance.evacuated', { async: true, promisify: true })
  evacuated(event: InstanceEvacuatedEvent): Promise<void> {
    const p = event.payload;
    const name = unlinkable(p.serviceName);
    const how = {
      restarted: `${name} was started again on another host from its own disk: nothing written to it was lost, but its processes were restarted.`,
      restored: `${name} was restored on another host from its backup of ${p.backupAt}. Anything written to its disk after that backup is lost.`,
      rebuilt: `${name} had no backup, so it was rebuilt on another host from image ${unlinkable(p.image ?? '')}: the data on its disk is lost, and root's SSH keys are all of your account's keys.`,
    }[p.outcome];
    const lines = [
      `The server that ran ${name} stopped answering and could not be brought back.`,
      how,
      p.powerState === 'running' ? `${name} is running again.` : `${name} is stopped, as it was; start it when you need it.`,
    ];
    const subject = {
      restarted: `${name} was started again on another host`,
      restored: `${name} was restored from a backup on another host`,
      rebuilt: `${name} was rebuilt from its image on another host`,
    }[p.outcome];
    return this.mail.send(event.accountId, p.serviceId, subject, lines);
  }
}
