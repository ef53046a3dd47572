import { MigrationInterface, QueryRunner } from 'typeorm';

export class CreateSshKeys1764000000500 implements MigrationInterface {
  name = 'CreateSshKeys1764000000500';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE ssh_keys (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        account_id uuid NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        name varchar(64) NOT NULL,
        public_key text NOT NULL,
        fingerprint varchar(64) NOT NULL,
        type varchar(32) NOT NULL,
        bits integer NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT ssh_keys_account_fingerprint_key UNIQUE (account_id, fingerprint)
      )`);
    await db.query(`CREATE INDEX ssh_keys_account_list_idx ON ssh_keys (account_id, created_at DESC, id DESC)`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE ssh_keys`);
  }
}
