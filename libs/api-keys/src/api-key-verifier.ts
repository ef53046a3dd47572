import { BeforeApplicationShutdown, Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { ActivityLog, ActivityThrottle, poolQuery, Principal, Scope, TransactionRunner } from '@app/core';
import { hashApiKey, isWellFormedApiKey } from './api-key-format';

interface KeyRow {
  id: string;
  name: string;
  account_id: string;
  scopes: Scope[];
  expires_at: Date | null;
  last_used_at: Date | null;
  revoked_at: Date | null;
  live: boolean;
}

const LAST_USED_GRANULARITY_MS = 60_000;
const FLUSH_INTERVAL_MS = 5_000;
/** Refused keys recorded in the activity log at most once per key per minute (per process). */
const REFUSED_ENTRIES_PER_MINUTE = 1;
// Revoked and expired keys are found too (same index, same one row), to record the refusal.
const LOOKUP = `SELECT id, name, account_id, scopes, expires_at, last_used_at, revoked_at,
        revoked_at IS NULL AND (expires_at IS NULL OR expires_at > now()) AS live
        FROM api_keys WHERE key_hash = $1`;

/**
 * Turns a presented key into a principal: checksum (no query), SHA-256, one lookup on the unique
 * hash index. Revoked and expired keys fail at once: nothing about a key is cached between
 * requests. lastUsedAt is written in batches, off the request path, at most once a minute per key.
 * The lookup runs on every request, so it goes to the driver's pool directly (poolQuery).
 */
@Injectable()
export class ApiKeyVerifier implements BeforeApplicationShutdown {
  private readonly touched = new Set<string>();
  private readonly timer = setInterval(() => void this.flush(), FLUSH_INTERVAL_MS).unref();
  private readonly logger = new Logger('Activity');

  constructor(
    private readonly dataSource: DataSource,
    private readonly activity: ActivityLog,
    private readonly throttle: ActivityThrottle,
    private readonly tx: TransactionRunner,
  ) {}

  async verify(key: string): Promise<Principal | null> {
    if (!isWellFormedApiKey(key)) return null;
    const [row] = await poolQuery<KeyRow>(this.dataSource, LOOKUP, [hashApiKey(key)]);
    if (!row) return null;
    if (!row.live) {
      await this.recordRefusal(row);
      return null;
    }
    if (!row.last_used_at || Date.now() - row.last_used_at.getTime() >= LAST_USED_GRANULARITY_MS) this.touched.add(row.id);
    return {
      accountId: row.account_id,
      kind: 'api_key',
      credentialId: row.id,
      scopes: row.scopes,
      expiresAt: row.expires_at,
      name: row.name,
    };
  }

  /** A revoked or expired key was presented: recorded against its account, cheaply and boundedly. */
  private async recordRefusal(row: KeyRow): Promise<void> {
    if (!this.throttle.allow(`api_key.refused:${row.id}`, REFUSED_ENTRIES_PER_MINUTE)) return;
    try {
      await this.tx.run((m) =>
        this.activity.record(m, {
          accountId: row.account_id,
          action: 'api_key.refused',
          entity: { type: 'api_key', id: row.id },
          status: 'failed',
          actor: { type: 'api_key', id: row.id, name: row.name },
          details: { reason: row.revoked_at ? 'revoked' : 'expired' },
        }),
      );
    } catch (err) {
      // The request is refused with 401 either way.
      this.logger.warn(`Refused API key not recorded: ${(err as Error).message}`);
    }
  }

  async flush(): Promise<void> {
    if (!this.touched.size || !this.dataSource.isInitialized) return;
    const ids = [...this.touched];
    this.touched.clear();
    await this.dataSource
      .query(
        `UPDATE api_keys SET last_used_at = now()
          WHERE id = ANY($1::uuid[]) AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')`,
        [ids],
      )
      .catch(() => ids.forEach((id) => this.touched.add(id)));
  }

  async beforeApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }
}
