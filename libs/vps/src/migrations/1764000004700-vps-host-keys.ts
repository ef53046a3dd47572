import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The SSH host keys the API gives a VPS's system and its rescue system (issue 58): the public key
 * shown in the service, the private key sealed (SecretBox) until a seed carries it to cloud-init.
 */
export class VpsHostKeys1764000004700 implements MigrationInterface {
  name = 'VpsHostKeys1764000004700';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE vps_host_keys (
        service_id uuid NOT NULL REFERENCES services(id) ON DELETE CASCADE,
        system varchar(8) NOT NULL CHECK (system IN ('vps', 'rescue')),
        public_key text NOT NULL,
        private_key_sealed text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (service_id, system)
      )`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE vps_host_keys`);
  }
}
