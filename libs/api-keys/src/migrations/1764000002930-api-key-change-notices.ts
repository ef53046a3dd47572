import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * API processes remember verified keys; a key revoked, changed or deleted (with its
 * account) tells them in its own transaction, whichever code path did it. The channel is core's
 * CREDENTIAL_CHANGES_CHANNEL.
 */
export class ApiKeyChangeNotices1764000002930 implements MigrationInterface {
  name = 'ApiKeyChangeNotices1764000002930';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE FUNCTION api_key_changed() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_notify('credential_changes', OLD.account_id::text);
        RETURN NULL;
      END $$`);
    await db.query(`
      CREATE TRIGGER api_keys_changed AFTER UPDATE OF revoked_at, expires_at, scopes, account_id, key_hash OR DELETE ON api_keys
        FOR EACH ROW EXECUTE FUNCTION api_key_changed()`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TRIGGER api_keys_changed ON api_keys`);
    await db.query(`DROP FUNCTION api_key_changed()`);
  }
}
