import { Column, PrimaryGeneratedColumn } from 'typeorm';

/** A row an account owns: its id, and the owner's, by which every lookup and list is scoped. */
export abstract class AccountOwned {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ name: 'account_id', type: 'uuid' })
  accountId: string;
}
