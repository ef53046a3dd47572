import { MigrationInterface, QueryRunner } from 'typeorm';

/** A key belongs to one member of one account (gone with the membership); today's keys are their account's owner's. */
export class ApiKeyMembers1764000004820 implements MigrationInterface {
  name = 'ApiKeyMembers1764000004820';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE api_keys ADD COLUMN member_id uuid REFERENCES account_members(id) ON DELETE CASCADE`);
    await db.query(
      `UPDATE api_keys k SET member_id = m.id FROM account_members m WHERE m.account_id = k.account_id AND m.login_id = k.account_id`,
    );
    await db.query(`ALTER TABLE api_keys ALTER COLUMN member_id SET NOT NULL`);
    await db.query(`CREATE INDEX api_keys_member_idx ON api_keys (member_id)`);
    // A key written without a member (an operator's seed) is its account's first owner's.
    await db.query(`
      CREATE FUNCTION api_key_default_member() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.member_id IS NULL THEN
          SELECT id INTO NEW.member_id FROM account_members WHERE account_id = NEW.account_id AND role = 'owner'
            ORDER BY login_id = account_id DESC, joined_at LIMIT 1;
        END IF;
        RETURN NEW;
      END $$`);
    await db.query(
      `CREATE TRIGGER api_keys_default_member BEFORE INSERT ON api_keys FOR EACH ROW EXECUTE FUNCTION api_key_default_member()`,
    );
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TRIGGER api_keys_default_member ON api_keys`);
    await db.query(`DROP FUNCTION api_key_default_member()`);
    await db.query(`ALTER TABLE api_keys DROP COLUMN member_id`);
  }
}
