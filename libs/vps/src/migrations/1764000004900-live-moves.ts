import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Live moves (issue 55): a copy of a running VPS's machine made by libvirt's live migration
 * (`live`), the VPS kept running, and the pause the guest saw at the switch-over (`downtime_ms`, from
 * libvirt's job statistics; null where a resumed move could not read it). A cold copy keeps `live` false.
 */
export class LiveMoves1764000004900 implements MigrationInterface {
  name = 'LiveMoves1764000004900';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE vps_relocations ADD COLUMN live boolean NOT NULL DEFAULT false`);
    await db.query(`ALTER TABLE vps_relocations ADD COLUMN downtime_ms integer`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE vps_relocations DROP COLUMN downtime_ms`);
    await db.query(`ALTER TABLE vps_relocations DROP COLUMN live`);
  }
}
