import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A snapshot being deleted: its volumes are removed from the hypervisors outside any transaction,
 * so the row says `deleting` meanwhile (no rebuild may choose it) and a retried delete finishes it.
 */
export class ImageDeleting1764000003800 implements MigrationInterface {
  name = 'ImageDeleting1764000003800';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE images DROP CONSTRAINT images_status_check`);
    await db.query(
      `ALTER TABLE images ADD CONSTRAINT images_status_check CHECK (status IN ('creating', 'uploading', 'available', 'deleting', 'deleted'))`,
    );
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`UPDATE images SET status = 'available' WHERE status = 'deleting'`);
    await db.query(`ALTER TABLE images DROP CONSTRAINT images_status_check`);
    await db.query(
      `ALTER TABLE images ADD CONSTRAINT images_status_check CHECK (status IN ('creating', 'uploading', 'available', 'deleted'))`,
    );
  }
}
