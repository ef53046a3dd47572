import { Column, CreateDateColumn, Entity } from 'typeorm';
import { AccountOwned } from '@app/core';

/** A login: one refresh-token family and the access tokens issued from it. */
@Entity('sessions')
export class Session extends AccountOwned {
  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @Column({ name: 'expires_at', type: 'timestamptz' })
  expiresAt: Date;

  @Column({ name: 'revoked_at', type: 'timestamptz', nullable: true })
  revokedAt: Date | null;

  @Column({ type: 'varchar', length: 64, nullable: true })
  ip: string | null;

  @Column({ name: 'user_agent', type: 'varchar', length: 512, nullable: true })
  userAgent: string | null;

  /** The account its tokens act on (a refresh keeps it); null: the login's first. */
  @Column({ name: 'current_account_id', type: 'uuid', nullable: true })
  currentAccountId: string | null;

  /** Written in batches off the request path, to the minute (SessionActivity). */
  @Column({ name: 'last_used_at', type: 'timestamptz', nullable: true })
  lastUsedAt: Date | null;
}
