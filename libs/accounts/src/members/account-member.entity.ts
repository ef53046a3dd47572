import { Column, Entity } from 'typeorm';
import { AccountOwned, type Role } from '@app/core';

/** A login's membership of an account, with its role. */
@Entity('account_members')
export class AccountMember extends AccountOwned {
  /** The login: a row of accounts (its email, password, second factor and sessions). */
  @Column({ name: 'login_id', type: 'uuid' })
  loginId: string;

  @Column({ type: 'varchar', length: 10 })
  role: Role;

  @Column({ name: 'joined_at', type: 'timestamptz' })
  joinedAt: Date;
}
