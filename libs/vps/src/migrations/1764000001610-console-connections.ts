import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A redeemed console session is an open connection until `closed_at`; the replica holding it
 * refreshes `alive_at`, so the connections of a replica that died stop counting against the
 * per-account limit once they go stale.
 */
export class ConsoleConnections1764000001610 implements MigrationInterface {
  name = 'ConsoleConnections1764000001610';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE console_sessions ADD COLUMN closed_at timestamptz, ADD COLUMN alive_at timestamptz`);
    await db.query(
      `CREATE INDEX console_sessions_open_idx ON console_sessions (service_id, alive_at) WHERE used_at IS NOT NULL AND closed_at IS NULL`,
    );
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP INDEX console_sessions_open_idx`);
    await db.query(`ALTER TABLE console_sessions DROP COLUMN closed_at, DROP COLUMN alive_at`);
  }
}
