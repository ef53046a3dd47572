import { MigrationInterface, QueryRunner } from 'typeorm';

/** A VPS's metric alerts, each with its state (`ok|firing`) and when that last changed. */
export class CreateMetricAlerts1764000003140 implements MigrationInterface {
  name = 'CreateMetricAlerts1764000003140';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE metric_alerts (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        account_id uuid NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        service_id uuid NOT NULL REFERENCES services(id) ON DELETE CASCADE,
        type varchar(16) NOT NULL CHECK (type IN ('cpu', 'network.in', 'network.out', 'disk.write')),
        above double precision NOT NULL CHECK (above >= 0),
        for_minutes integer NOT NULL CHECK (for_minutes BETWEEN 1 AND 60),
        state varchar(8) NOT NULL DEFAULT 'ok' CHECK (state IN ('ok', 'firing')),
        state_changed_at timestamptz NOT NULL DEFAULT now(),
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await db.query(`CREATE INDEX metric_alerts_service_list_idx ON metric_alerts (service_id, created_at DESC, id DESC)`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE metric_alerts`);
  }
}
