import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { Account } from './account.entity';

/**
 * The statements on the accounts table beyond plain reads and saves (which go through TypeORM's
 * `Repository<Account>`): the password hash read and its upgrade, a row lock and the conditional updates.
 */
@Injectable()
export class AccountsRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** The account with its password hash (a column never selected otherwise), or null. */
  findWithPasswordHash(email: string): Promise<Account | null> {
    return this.dataSource
      .getRepository(Account)
      .createQueryBuilder('a')
      .addSelect('a.passwordHash')
      .where('a.email = :email', { email })
      .getOne();
  }

  /** SELECT ... FOR UPDATE of the account row; false for an unknown id. */
  async lockForUpdate(manager: EntityManager, id: string): Promise<boolean> {
    const rows: unknown[] = await manager.query('SELECT id FROM accounts WHERE id = $1 FOR UPDATE', [id]);
    return rows.length > 0;
  }

  /** Swaps in a hash made with the current parameters, unless the password changed meanwhile. */
  async replacePasswordHash(id: string, previous: string, next: string): Promise<void> {
    await this.dataSource.query('UPDATE accounts SET password_hash = $3 WHERE id = $1 AND password_hash = $2', [id, previous, next]);
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
