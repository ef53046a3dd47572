import { Column, CreateDateColumn, Entity } from 'typeorm';
import { AccountOwned } from '@app/core';

@Entity('ssh_keys')
export class SshKey extends AccountOwned {
  @Column({ type: 'varchar', length: 64 })
  name: string;

  @Column({ name: 'public_key', type: 'text' })
  publicKey: string;

  @Column({ type: 'varchar', length: 64 })
  fingerprint: string;

  @Column({ type: 'varchar', length: 32 })
  type: string;

  @Column({ type: 'integer' })
  bits: number;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
