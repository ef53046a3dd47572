import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A VPS whose disks are on Ceph (DISK_BACKEND=rbd) is made again on another host from the disk it
 * had when its host dies (issue 55): a relocation's source may be `disk`.
 */
export class EvacuationFromDisk1764000005000 implements MigrationInterface {
  name = 'EvacuationFromDisk1764000005000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE vps_relocations DROP CONSTRAINT vps_relocations_source_check`);
    await db.query(
      `ALTER TABLE vps_relocations ADD CONSTRAINT vps_relocations_source_check CHECK (source IN ('copy', 'disk', 'backup', 'image'))`,
    );
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DELETE FROM vps_relocations WHERE source = 'disk'`);
    await db.query(`ALTER TABLE vps_relocations DROP CONSTRAINT vps_relocations_source_check`);
    await db.query(`ALTER TABLE vps_relocations ADD CONSTRAINT vps_relocations_source_check CHECK (source IN ('copy', 'backup', 'image'))`);
  }
}
