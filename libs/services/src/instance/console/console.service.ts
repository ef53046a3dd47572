import { createHash, randomBytes } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { AppConfig, Problem, SecretBox, TransactionRunner } from '@app/core';
import { ComputeProvider, ConsoleTarget } from '../compute/compute-provider';
import { ConsoleSessionResponse } from '../dto/console-session.response';
import { VpsLookup } from '../vps-lookup';

export const CONSOLE_SESSION_TTL_MS = 60_000;

const hashToken = (token: string): string => createHash('sha256').update(token).digest('hex');

/**
 * Console sessions: a single-use token in a wss URL, valid 60 seconds. Only the token's hash and
 * the sealed upstream target are stored; the console proxy redeems the token once.
 */
@Injectable()
export class ConsoleService {
  constructor(
    private readonly vps: VpsLookup,
    private readonly compute: ComputeProvider,
    private readonly tx: TransactionRunner,
    private readonly box: SecretBox,
    private readonly config: AppConfig,
  ) {}

  async open(accountId: string, serviceId: string): Promise<ConsoleSessionResponse> {
    const vps = await this.vps.require(accountId, serviceId);
    if (vps.status !== 'active') throw Problem.conflict('invalid_state', `The service is ${vps.status}; a console needs an active service.`);
    if (vps.powerState !== 'running') throw Problem.conflict('invalid_state', `The instance is ${vps.powerState}; a console needs it running.`);
    const target = await this.compute.openConsole(vps.ref);
    const token = randomBytes(32).toString('base64url');
    const expiresAt = new Date(Date.now() + CONSOLE_SESSION_TTL_MS);
    await this.tx.run(async (m) => {
      await m.query(`DELETE FROM console_sessions WHERE service_id = $1 AND expires_at < now() - interval '1 day'`, [serviceId]);
      await m.query(`INSERT INTO console_sessions (service_id, token_hash, target_sealed, expires_at) VALUES ($1, $2, $3, $4)`, [
        serviceId,
        hashToken(token),
        this.box.seal(JSON.stringify(target)),
        expiresAt,
      ]);
    });
    return { protocol: 'vnc', url: `${this.consoleBase()}/console?token=${token}`, password: target.password, expiresAt: expiresAt.toISOString() };
  }

  /** For the console proxy: the session's target, once; null for an unknown, used or expired token. */
  async redeem(token: string): Promise<{ serviceId: string; target: ConsoleTarget } | null> {
    const [row]: { service_id: string; target_sealed: string }[] = await this.vps.manager.query(
      `WITH used AS (
         UPDATE console_sessions SET used_at = now()
          WHERE token_hash = $1 AND used_at IS NULL AND expires_at > now()
          RETURNING service_id, target_sealed
       ) SELECT service_id, target_sealed FROM used`,
      [hashToken(token)],
    );
    return row ? { serviceId: row.service_id, target: JSON.parse(this.box.open(row.target_sealed)) as ConsoleTarget } : null;
  }

  /** The console proxy sits behind TLS at the public address (DESIGN.md: wss://...). */
  private consoleBase(): string {
    return this.config.publicUrl.replace(/^https?:/, 'wss:');
  }
}
