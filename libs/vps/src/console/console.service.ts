import { createHash } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { AppConfig, CredentialRef, CredentialStatus, Problem, SecretBox } from '@app/core';
import type { ConsoleTarget } from '../compute/compute-provider';
import { ConsoleSessionsRepository } from './console-sessions.repository';

export const CONSOLE_SESSION_TTL_MS = 60_000;

export const hashToken = (token: string): string => createHash('sha256').update(token).digest('hex');

/** The console is a WebSocket on the API's own address: wss:// behind https, ws:// otherwise. */
export const consoleUrlBase = (publicUrl: string): string => publicUrl.replace(/^http/, 'ws');

export interface OpenedConsole {
  sessionId: string;
  serviceId: string;
  /** Who asked for it: the console ends when this session ends or this API key is revoked. */
  credential: CredentialRef;
  /** When that credential stops by itself (an API key's expiry); null: never. */
  validUntil: Date | null;
  target: ConsoleTarget;
}

export const consoleLimitReached = (max: number): Problem =>
  Problem.conflict('quota_exceeded', `At most ${max} consoles can be open at once per account; close one first.`);

export type ConsoleRedemption =
  ({ outcome: 'opened' } & OpenedConsole) | { outcome: 'refused' } | { outcome: 'revoked' } | { outcome: 'limit' };

/**
 * Console sessions: a single-use token in a ws(s) URL, valid 60 seconds (issued by ConsoleIssuer).
 * Only the token's hash, the sealed upstream target and the id of the credential it was issued to
 * are stored; the console proxy redeems the token here once, while that credential still works.
 */
@Injectable()
export class ConsoleService {
  constructor(
    private readonly sessions: ConsoleSessionsRepository,
    private readonly box: SecretBox,
    private readonly config: AppConfig,
    private readonly credentials: CredentialStatus,
  ) {}

  /**
   * For the console proxy: the session's target, once, within the account's limit of open consoles,
   * while the credential it was issued to still works (checked before the token is spent).
   */
  async redeem(token: string): Promise<ConsoleRedemption> {
    const tokenHash = hashToken(token);
    const credential = await this.sessions.credentialOf(tokenHash);
    if (!credential) return { outcome: 'refused' };
    const live = await this.credentials.check(credential);
    if (!live) return { outcome: 'revoked' };
    const result = await this.sessions.redeem(tokenHash, this.config.consoleMaxPerAccount);
    if (result.outcome !== 'opened') return result;
    const { targetSealed, ...session } = result;
    return { ...session, validUntil: live.validUntil, target: JSON.parse(this.box.open(targetSealed)) as ConsoleTarget };
  }

  limitReached(): Problem {
    return consoleLimitReached(this.config.consoleMaxPerAccount);
  }
}
