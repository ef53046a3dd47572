import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { isoText, pageOfRows, PageQuery, RowsPage, runSql, sqlFirst, sqlRows } from '@app/core';
import type { ImageFormat, ImageRow } from './image.types';

const COLUMNS = `id, slug, name, os_family, os_version, min_disk_gb, format, size_bytes, status, ${isoText('created_at')} AS created_at`;

export interface NewImage {
  slug: string;
  name: string;
  osFamily: string;
  osVersion: string;
  minDiskGb: number;
  format: ImageFormat;
  sizeBytes: number;
}

/** All SQL on images: the catalogue of operating systems, the same for every account. */
@Injectable()
export class ImagesRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** What customers see: available images only; one still uploading cannot be installed yet (issue 36, finding 7). */
  page(query: PageQuery): Promise<RowsPage<ImageRow>> {
    return pageOfRows(this.dataSource, { table: 'images', columns: COLUMNS, where: `status = 'available'`, params: [] }, query);
  }

  /** An available image by slug or id. */
  findAvailable(slugOrId: string, manager: EntityManager = this.dataSource.manager): Promise<ImageRow | null> {
    const byId = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(slugOrId);
    return sqlFirst<ImageRow>(
      manager,
      `SELECT ${COLUMNS} FROM images WHERE ${byId ? 'id = $1::uuid' : 'slug = $1'} AND status = 'available'`,
      [slugOrId],
    );
  }

  async findBySlug(slug: string): Promise<ImageRow | null> {
    const row = await sqlFirst<ImageRow>(this.dataSource, `SELECT ${COLUMNS} FROM images WHERE slug = $1 AND status <> 'deleted'`, [slug]);
    return row ?? null;
  }

  async insertUploading(image: NewImage): Promise<ImageRow> {
    const row = await sqlFirst<ImageRow>(
      this.dataSource,
      `INSERT INTO images (slug, name, os_family, os_version, min_disk_gb, format, size_bytes, status)
       VALUES ($1, $2, $3, $4, $5, $6, $7, 'uploading') RETURNING ${COLUMNS}`,
      [image.slug, image.name, image.osFamily, image.osVersion, image.minDiskGb, image.format, image.sizeBytes],
    );
    return row!;
  }

  async setStatus(id: string, status: 'available' | 'deleted'): Promise<ImageRow | null> {
    const rows = await sqlRows<ImageRow>(
      this.dataSource,
      `UPDATE images SET status = $2::varchar, deleted_at = CASE WHEN $2::varchar = 'deleted' THEN now() END WHERE id = $1 RETURNING ${COLUMNS}`,
      [id, status],
    );
    return rows[0] ?? null;
  }

  /** Demo data: an available image, unless a live one has its slug already. */
  async insertIfAbsent(manager: EntityManager, image: NewImage): Promise<void> {
    await runSql(
      manager,
      `INSERT INTO images (slug, name, os_family, os_version, min_disk_gb, format, size_bytes, status)
       SELECT $1::varchar, $2, $3, $4, $5::int, $6, $7::bigint, 'available'
        WHERE NOT EXISTS (SELECT 1 FROM images WHERE slug = $1::varchar AND status <> 'deleted')
       ON CONFLICT DO NOTHING`,
      [image.slug, image.name, image.osFamily, image.osVersion, image.minDiskGb, image.format, image.sizeBytes],
    );
  }

  async deleteRow(id: string): Promise<void> {
    await runSql(this.dataSource, `DELETE FROM images WHERE id = $1`, [id]);
  }

  /** Live VPSes whose disk is backed by the image (it cannot go while they exist). */
  async usedBy(id: string): Promise<number> {
    const { n } = (await sqlFirst<{ n: number }>(
      this.dataSource,
      `SELECT count(*)::int AS n FROM vps_instances i JOIN services s ON s.id = i.service_id
        WHERE i.image_id = $1 AND s.status <> 'terminated'`,
      [id],
    ))!;
    return n;
  }
}
