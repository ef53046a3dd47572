import { EntityManager } from 'typeorm';

const DEMO_IMAGES = [
  ['debian-12', 'Debian 12 (bookworm)', 'debian', '12', 2, 'qcow2', 338_624_512],
  ['ubuntu-24.04', 'Ubuntu 24.04 LTS', 'ubuntu', '24.04', 4, 'qcow2', 587_202_560],
] as const;

/**
 * The simulator's catalogue of images for a first `npm start` (rows only: the simulator keeps no
 * files), added once. With libvirt, operators add real images with image:add instead.
 */
export async function seedDemoImages(manager: EntityManager): Promise<void> {
  for (const [slug, name, family, version, minDiskGb, format, size] of DEMO_IMAGES) {
    await manager.query(
      `INSERT INTO images (slug, name, os_family, os_version, min_disk_gb, format, size_bytes, status)
       SELECT $1::varchar, $2, $3, $4, $5::int, $6, $7::bigint, 'available'
        WHERE NOT EXISTS (SELECT 1 FROM images WHERE slug = $1::varchar AND status <> 'deleted')
       ON CONFLICT DO NOTHING`,
      [slug, name, family, version, minDiskGb, format, size],
    );
  }
}
