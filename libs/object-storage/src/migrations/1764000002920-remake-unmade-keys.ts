import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A sync that waited for a rotation's COMMIT applied the rotation's version with the old key (fixed
 * in ObjectStorageUsersRepository.tryTake): such a service holds a key the gateway never made, and
 * counts as settled, so it answered 409 for good. Its version is raised once, so the reconciliation
 * scan makes the key (and removes the old one from the gateway).
 */
export class RemakeUnmadeKeys1764000002920 implements MigrationInterface {
  name = 'RemakeUnmadeKeys1764000002920';

  async up(db: QueryRunner): Promise<void> {
    await db.query(
      `UPDATE object_storage_users u SET desired_version = u.applied_version + 1
         FROM object_storage_credentials c
        WHERE c.service_id = u.service_id AND c.secret_sealed IS NULL
          AND u.applied_version >= u.desired_version AND u.gateway_state IN ('active', 'suspended')`,
    );
  }

  async down(): Promise<void> {
    // Nothing to undo: the raised version only made the gateway catch up.
  }
}
