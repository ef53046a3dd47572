import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { type ClientInfo, runSql, sqlFirst, sqlRows } from '@app/core';

export interface MfaRow {
  secret_sealed: string;
  enabled_at: Date | null;
  last_time_step: string | null;
}

export interface ChallengeRow {
  id: string;
  account_id: string;
  ip: string | null;
  user_agent: string | null;
  failed_attempts: number;
  live: boolean;
}

/** TOTP secrets, recovery codes and login challenges; every query names its account. */
@Injectable()
export class MfaRepository {
  constructor(private readonly dataSource: DataSource) {}

  async isEnabled(accountId: string): Promise<boolean> {
    const rows = await sqlRows(this.dataSource, 'SELECT 1 FROM account_mfa WHERE account_id = $1 AND enabled_at IS NOT NULL', [accountId]);
    return rows.length > 0;
  }

  find(m: EntityManager, accountId: string, lock = false): Promise<MfaRow | null> {
    return sqlFirst<MfaRow>(
      m,
      `SELECT secret_sealed, enabled_at, last_time_step FROM account_mfa WHERE account_id = $1${lock ? ' FOR UPDATE' : ''}`,
      [accountId],
    );
  }

  /** A new pending secret (replaces an earlier setup that was never enabled). */
  async savePending(m: EntityManager, accountId: string, secretSealed: string): Promise<void> {
    await runSql(
      m,
      `INSERT INTO account_mfa (account_id, secret_sealed) VALUES ($1, $2)
       ON CONFLICT (account_id) DO UPDATE SET secret_sealed = EXCLUDED.secret_sealed, last_time_step = NULL, created_at = now()
       WHERE account_mfa.enabled_at IS NULL`,
      [accountId, secretSealed],
    );
  }

  async enable(m: EntityManager, accountId: string, recoveryCodeHashes: string[]): Promise<void> {
    await runSql(m, 'UPDATE account_mfa SET enabled_at = now() WHERE account_id = $1', [accountId]);
    await runSql(m, 'DELETE FROM mfa_recovery_codes WHERE account_id = $1', [accountId]);
    await runSql(m, 'INSERT INTO mfa_recovery_codes (account_id, code_hash) SELECT $1, unnest($2::text[])', [
      accountId,
      recoveryCodeHashes,
    ]);
  }

  async disable(m: EntityManager, accountId: string): Promise<void> {
    await runSql(m, 'DELETE FROM mfa_recovery_codes WHERE account_id = $1', [accountId]);
    await runSql(m, 'DELETE FROM mfa_challenges WHERE account_id = $1', [accountId]);
    await runSql(m, 'DELETE FROM account_mfa WHERE account_id = $1', [accountId]);
  }

  async recordTimeStep(m: EntityManager, accountId: string, timeStep: number): Promise<void> {
    await runSql(m, 'UPDATE account_mfa SET last_time_step = $2 WHERE account_id = $1', [accountId, timeStep]);
  }

  /** Marks an unused recovery code used; false if it is not one of the account's unused codes. */
  async spendRecoveryCode(m: EntityManager, accountId: string, codeHash: string): Promise<boolean> {
    const rows = await sqlRows(
      m,
      `UPDATE mfa_recovery_codes SET used_at = now() WHERE id = (
         SELECT id FROM mfa_recovery_codes WHERE account_id = $1 AND code_hash = $2 AND used_at IS NULL LIMIT 1 FOR UPDATE
       ) RETURNING id`,
      [accountId, codeHash],
    );
    return rows.length > 0;
  }

  async createChallenge(accountId: string, tokenHash: string, ttlSeconds: number, client?: ClientInfo): Promise<void> {
    await runSql(
      this.dataSource,
      `INSERT INTO mfa_challenges (account_id, token_hash, ip, user_agent, expires_at)
       VALUES ($1, $2, $3, $4, now() + make_interval(secs => $5))`,
      [accountId, tokenHash, client?.ip ?? null, client?.userAgent ?? null, ttlSeconds],
    );
  }

  /** With a manager: locked for the rest of its transaction. */
  findChallenge(tokenHash: string, m?: EntityManager): Promise<ChallengeRow | null> {
    return sqlFirst<ChallengeRow>(
      m ?? this.dataSource,
      `SELECT id, account_id, ip, user_agent, failed_attempts, (ended_at IS NULL AND expires_at > now()) AS live
         FROM mfa_challenges WHERE token_hash = $1${m ? ' FOR UPDATE' : ''}`,
      [tokenHash],
    );
  }

  async failChallenge(m: EntityManager, id: string, maxAttempts: number): Promise<void> {
    await runSql(
      m,
      `UPDATE mfa_challenges SET failed_attempts = failed_attempts + 1,
         ended_at = CASE WHEN failed_attempts + 1 >= $2 THEN now() ELSE ended_at END WHERE id = $1`,
      [id, maxAttempts],
    );
  }

  async endChallenge(m: EntityManager, id: string): Promise<void> {
    await runSql(m, 'UPDATE mfa_challenges SET ended_at = now() WHERE id = $1', [id]);
  }
}
