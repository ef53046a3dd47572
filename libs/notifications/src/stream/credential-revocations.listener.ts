import { Injectable } from '@nestjs/common';
import { OnEvent } from '@nestjs/event-emitter';
import type { CredentialsRevokedEvent } from '@app/core';
import { NotificationHub } from './notification-hub';

/** A revoked key, an ended session or a changed password: streams on every process check their credential. */
@Injectable()
export class CredentialRevocationsListener {
  constructor(private readonly hub: NotificationHub) {}

  @OnEvent('credentials.revoked', { async: true, promisify: true })
  revoked(event: CredentialsRevokedEvent) {
    return this.hub.announceRevocation(event.accountId);
  }
}
