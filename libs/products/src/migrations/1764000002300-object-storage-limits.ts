import { MigrationInterface, QueryRunner } from 'typeorm';

/** Object storage products gain the gateway's other limits: objects and buckets per service. */
const LIMITS: Record<string, { maxObjects: number; maxBuckets: number }> = {
  'storage-250': { maxObjects: 5_000_000, maxBuckets: 100 },
  'storage-1000': { maxObjects: 20_000_000, maxBuckets: 500 },
  'storage-5000': { maxObjects: 100_000_000, maxBuckets: 1000 },
};

export class ObjectStorageLimits1764000002300 implements MigrationInterface {
  name = 'ObjectStorageLimits1764000002300';

  async up(db: QueryRunner): Promise<void> {
    for (const [slug, limits] of Object.entries(LIMITS)) {
      await db.query(`UPDATE products SET specs = specs || $2::jsonb WHERE slug = $1 AND type = 'object_storage'`, [
        slug,
        JSON.stringify(limits),
      ]);
    }
    // Any other object storage product: a million objects per 50 GB, 100 buckets.
    await db.query(
      `UPDATE products SET specs = specs || jsonb_build_object('maxObjects', greatest(1000000, ((specs->>'storageGb')::numeric * 20000)::bigint), 'maxBuckets', 100)
        WHERE type = 'object_storage' AND NOT specs ? 'maxObjects'`,
    );
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`UPDATE products SET specs = specs - 'maxObjects' - 'maxBuckets' WHERE type = 'object_storage'`);
  }
}
