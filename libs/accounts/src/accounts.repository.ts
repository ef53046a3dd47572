import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';

/**
 * The raw statements on the accounts table, each inside the caller's transaction: a row lock and
 * the two conditional updates. Plain reads and saves go through TypeORM's `Repository<Account>`.
 */
@Injectable()
export class AccountsRepository {
  /** SELECT ... FOR UPDATE of the account row; false for an unknown id. */
  async lockForUpdate(manager: EntityManager, id: string): Promise<boolean> {
    const rows: unknown[] = await manager.query('SELECT id FROM accounts WHERE id = $1 FOR UPDATE', [id]);
    return rows.length > 0;
  }

  /** Marks the address confirmed only while it is still the account's address. */
  async markEmailVerified(manager: EntityManager, accountId: string, email: string): Promise<void> {
    await manager.query('UPDATE accounts SET email_verified_at = now() WHERE id = $1 AND email = $2 AND email_verified_at IS NULL', [
      accountId,
      email,
    ]);
  }

  /** Replaces the address with a confirmed one (a unique violation if another account has it). */
  async changeEmail(manager: EntityManager, accountId: string, email: string): Promise<void> {
    await manager.query('UPDATE accounts SET email = $2, email_verified_at = now(), updated_at = now() WHERE id = $1', [accountId, email]);
  }
}
