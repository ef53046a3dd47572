import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * API processes remember verified sessions; a session revoked, cut short or deleted (with
 * its account) tells them in its own transaction, whichever code path did it. The channel is core's
 * CREDENTIAL_CHANGES_CHANNEL.
 */
export class SessionChangeNotices1764000002910 implements MigrationInterface {
  name = 'SessionChangeNotices1764000002910';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE FUNCTION session_changed() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_notify('credential_changes', OLD.account_id::text);
        RETURN NULL;
      END $$`);
    await db.query(`
      CREATE TRIGGER sessions_changed AFTER UPDATE OF revoked_at, expires_at, account_id OR DELETE ON sessions
        FOR EACH ROW EXECUTE FUNCTION session_changed()`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TRIGGER sessions_changed ON sessions`);
    await db.query(`DROP FUNCTION session_changed()`);
  }
}
