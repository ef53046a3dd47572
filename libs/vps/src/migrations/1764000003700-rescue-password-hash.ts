import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A finished rescue's root password hash is dropped when the action ends; this drops it
 * from the rescues that ended before. A running one keeps it: its seed may still have to be written.
 */
export class RescuePasswordHash1764000003700 implements MigrationInterface {
  name = 'RescuePasswordHash1764000003700';

  async up(db: QueryRunner): Promise<void> {
    await db.query(
      `UPDATE instance_actions SET params = params #- '{rescue,boot,seed,rootPasswordHash}'
        WHERE type = 'rescue' AND status <> 'running' AND params #> '{rescue,boot,seed,rootPasswordHash}' IS NOT NULL`,
    );
  }

  async down(): Promise<void> {
    // A hash once dropped cannot come back, and nothing needs it.
  }
}
