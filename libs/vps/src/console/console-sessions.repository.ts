import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { pgNotify, runSql, sqlFirst, sqlRows, type CredentialKind, type CredentialRef, inTransaction } from '@app/core';

/** An open connection whose replica has not refreshed it for this long no longer counts. */
export const CONSOLE_STALE_SECONDS = 60;

const OPEN = `c.used_at IS NOT NULL AND c.closed_at IS NULL AND c.alive_at > now() - interval '${CONSOLE_STALE_SECONDS} seconds'`;

export type Redemption =
  | { outcome: 'opened'; sessionId: string; serviceId: string; credential: CredentialRef; targetSealed: string }
  | { outcome: 'refused' }
  | { outcome: 'limit' };

/** All SQL on console_sessions: issued tokens, and the connections they became. */
@Injectable()
export class ConsoleSessionsRepository {
  constructor(private readonly dataSource: DataSource) {}

  async insert(
    manager: EntityManager,
    serviceId: string,
    credential: CredentialRef,
    session: { tokenHash: string; targetSealed: string; expiresAt: Date },
  ): Promise<void> {
    await runSql(
      manager,
      `DELETE FROM console_sessions WHERE service_id = $1 AND expires_at < now() - interval '1 day'
          AND (used_at IS NULL OR closed_at IS NOT NULL OR alive_at < now() - interval '1 day')`,
      [serviceId],
    );
    await runSql(
      manager,
      `INSERT INTO console_sessions (service_id, token_hash, target_sealed, expires_at, credential_kind, credential_id) VALUES ($1, $2, $3, $4, $5, $6)`,
      [serviceId, session.tokenHash, session.targetSealed, session.expiresAt, credential.kind, credential.credentialId],
    );
  }

  /** A NOTIFY to every API process on the channel (no table: messages between replicas). */
  notifyProcesses(channel: string, payload: string): Promise<void> {
    return pgNotify(this.dataSource, channel, payload);
  }

  countOpen(accountId: string): Promise<number> {
    return this.countOpenIn(this.dataSource.manager, accountId);
  }

  private async countOpenIn(manager: EntityManager, accountId: string): Promise<number> {
    const { count } = (await sqlFirst<{ count: number }>(
      manager,
      `SELECT count(*)::int AS count FROM console_sessions c JOIN services s ON s.id = c.service_id WHERE s.account_id = $1 AND ${OPEN}`,
      [accountId],
    ))!;
    return count;
  }

  /** The credential an unused, unexpired token was issued to; null if there is no such token. */
  async credentialOf(tokenHash: string): Promise<CredentialRef | null> {
    const row = await sqlFirst<CredentialRow>(
      this.dataSource,
      `SELECT s.account_id, c.credential_kind, c.credential_id FROM console_sessions c JOIN services s ON s.id = c.service_id
        WHERE c.token_hash = $1 AND c.used_at IS NULL AND c.expires_at > now() AND c.credential_id IS NOT NULL`,
      [tokenHash],
    );
    return row ? credentialOf(row) : null;
  }

  /**
   * Marks the token used and its connection open, once, while the session is unexpired and the
   * machine running, unless the account already has `maxOpen` connections. An advisory lock per
   * account makes the count exact across replicas.
   */
  redeem(tokenHash: string, maxOpen: number): Promise<Redemption> {
    return inTransaction(this.dataSource, async (m) => {
      const session = await sqlFirst<CredentialRow & { id: string; service_id: string }>(
        m,
        `SELECT c.id, c.service_id, s.account_id, c.credential_kind, c.credential_id FROM console_sessions c
           JOIN services s ON s.id = c.service_id
           JOIN vps_instances v ON v.service_id = c.service_id
          WHERE c.token_hash = $1 AND c.used_at IS NULL AND c.expires_at > now() AND c.credential_id IS NOT NULL
            AND s.status = 'active' AND v.power_state = 'running'
          FOR UPDATE OF c`,
        [tokenHash],
      );
      if (!session) return { outcome: 'refused' };
      await runSql(m, `SELECT pg_advisory_xact_lock(hashtext($1))`, [`console:${session.account_id}`]);
      if ((await this.countOpenIn(m, session.account_id)) >= maxOpen) return { outcome: 'limit' };
      const opened = await sqlFirst<{ target_sealed: string }>(
        m,
        `WITH used AS (UPDATE console_sessions SET used_at = now(), alive_at = now() WHERE id = $1 RETURNING target_sealed) SELECT target_sealed FROM used`,
        [session.id],
      );
      return {
        outcome: 'opened',
        sessionId: session.id,
        serviceId: session.service_id,
        credential: credentialOf(session),
        targetSealed: opened!.target_sealed,
      };
    });
  }

  /**
   * Refreshes this replica's open connections; returns those that must end, and why: the service is
   * no longer active (suspended, cancelled) or its machine is not running.
   */
  async keepAlive(sessionIds: string[]): Promise<Map<string, 'inactive' | 'stopped'>> {
    const rows = await sqlRows<{ id: string; active: boolean; running: boolean }>(
      this.dataSource,
      `WITH touched AS (
         UPDATE console_sessions SET alive_at = now() WHERE id = ANY($1::uuid[]) AND closed_at IS NULL RETURNING id, service_id
       ) SELECT t.id, s.status = 'active' AS active, v.power_state = 'running' AS running FROM touched t
           JOIN services s ON s.id = t.service_id
           JOIN vps_instances v ON v.service_id = t.service_id`,
      [sessionIds],
    );
    const ending = new Map<string, 'inactive' | 'stopped'>(sessionIds.map((id) => [id, 'stopped']));
    for (const row of rows) {
      if (!row.active) ending.set(row.id, 'inactive');
      else if (row.running) ending.delete(row.id);
    }
    return ending;
  }

  async close(sessionId: string): Promise<void> {
    await runSql(this.dataSource, `UPDATE console_sessions SET closed_at = now() WHERE id = $1 AND closed_at IS NULL`, [sessionId]);
  }
}

interface CredentialRow {
  account_id: string;
  credential_kind: CredentialKind;
  credential_id: string;
}

const credentialOf = (row: CredentialRow): CredentialRef => ({
  accountId: row.account_id,
  kind: row.credential_kind,
  credentialId: row.credential_id,
  // A console is a member's tool: a member made read-only loses it.
  needs: 'member',
});
