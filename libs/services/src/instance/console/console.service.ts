import { createHash, randomBytes } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { ActivityLog, AppConfig, CredentialRef, CredentialStatus, Principal, Problem, SecretBox, TransactionRunner } from '@app/core';
import { ServiceOwnership } from '../../service-ownership';
import { ComputeProvider, ConsoleTarget } from '../compute/compute-provider';
import { ConsoleSessionResponse } from '../dto/console-session.response';
import { ConsoleSessionsRepository } from './console-sessions.repository';

export const CONSOLE_SESSION_TTL_MS = 60_000;

const hashToken = (token: string): string => createHash('sha256').update(token).digest('hex');

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

export type ConsoleRedemption =
  ({ outcome: 'opened' } & OpenedConsole) | { outcome: 'refused' } | { outcome: 'revoked' } | { outcome: 'limit' };

/**
 * Console sessions: a single-use token in a ws(s) URL, valid 60 seconds. Only the token's hash,
 * the sealed upstream target and the id of the credential it was issued to are stored; the console
 * proxy redeems the token once, while that credential still works.
 */
@Injectable()
export class ConsoleService {
  constructor(
    private readonly ownership: ServiceOwnership,
    private readonly compute: ComputeProvider,
    private readonly sessions: ConsoleSessionsRepository,
    private readonly tx: TransactionRunner,
    private readonly box: SecretBox,
    private readonly config: AppConfig,
    private readonly activity: ActivityLog,
    private readonly credentials: CredentialStatus,
  ) {}

  async open(caller: Principal, serviceId: string): Promise<ConsoleSessionResponse> {
    const { accountId } = caller;
    const vps = await this.ownership.requireVps(accountId, serviceId);
    if (vps.status !== 'active')
      throw Problem.conflict('invalid_state', `The service is ${vps.status}; a console needs an active service.`);
    if (vps.powerState !== 'running')
      throw Problem.conflict('invalid_state', `The instance is ${vps.powerState}; a console needs it running.`);
    if ((await this.sessions.countOpen(accountId)) >= this.config.consoleMaxPerAccount) throw this.limitReached();
    const target = await this.compute.openConsole(vps.ref);
    const token = randomBytes(32).toString('base64url');
    const expiresAt = new Date(Date.now() + CONSOLE_SESSION_TTL_MS);
    await this.tx.run(async (m) => {
      await this.sessions.insert(m, serviceId, caller, {
        tokenHash: hashToken(token),
        targetSealed: this.box.seal(JSON.stringify(target)),
        expiresAt,
      });
      await this.activity.record(m, {
        accountId,
        caller,
        action: 'instance.console',
        entity: { type: 'service', id: serviceId },
        details: { expiresAt: expiresAt.toISOString() },
      });
    });
    return {
      protocol: 'vnc',
      url: `${consoleUrlBase(this.config.publicUrl)}/console?token=${token}`,
      password: target.password,
      expiresAt: expiresAt.toISOString(),
    };
  }

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
    return Problem.conflict(
      'quota_exceeded',
      `At most ${this.config.consoleMaxPerAccount} consoles can be open at once per account; close one first.`,
    );
  }
}
