import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * An S3 key's secret is made by the gateway and read from its answer (sent in
 * the Admin Ops URL, it was written to the gateway's access log), so a new key has no secret until
 * the sync has added it to the gateway.
 */
export class GatewayMadeSecrets1764000002730 implements MigrationInterface {
  name = 'GatewayMadeSecrets1764000002730';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE object_storage_credentials ALTER COLUMN secret_sealed DROP NOT NULL`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DELETE FROM object_storage_credentials WHERE secret_sealed IS NULL`);
    await db.query(`ALTER TABLE object_storage_credentials ALTER COLUMN secret_sealed SET NOT NULL`);
  }
}
