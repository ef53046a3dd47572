import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { isoText, isUuidText, pageOfRows, PageQuery, RowsPage, runSql, sqlFirst, sqlRows } from '@app/core';
import type { ImageFormat, ImageRow } from './image.types';

const COLUMNS = `id, slug, name, os_family, os_version, min_disk_gb, format, size_bytes, status, type, account_id, created_from_service_id,
       ${isoText('created_at')} AS created_at`;
/**
 * An operator's image a customer may see and install: not the rescue system, the provider's tool (flagged `rescue`, or the
 * slug RESCUE_IMAGE names, the parameter given).
 */
const customerSystemImage = (rescueSlug: string) => `account_id IS NULL AND NOT rescue AND slug IS DISTINCT FROM ${rescueSlug}::varchar`;
/** What an account sees: the operator's available images, and its own snapshots from the moment they are asked for. */
const VISIBLE = `((${customerSystemImage('$2')} AND status = 'available') OR (account_id = $1 AND status IN ('creating', 'available')))`;

export interface NewSnapshot {
  accountId: string;
  serviceId: string;
  name: string;
  /** The image the VPS was built from: the snapshot says the same system (none: `linux`, `unknown`). */
  sourceImageId: string | null;
  minDiskGb: number;
}

export interface NewImage {
  slug: string;
  name: string;
  osFamily: string;
  osVersion: string;
  minDiskGb: number;
  format: ImageFormat;
  sizeBytes: number;
  /** An image the rescue mode may boot (`image:add --rescue`). */
  rescue?: boolean;
}

/** All SQL on images: the operator's catalogue (every account's) and each account's snapshots. */
@Injectable()
export class ImagesRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** What an account sees; a system image still uploading cannot be installed yet. */
  pageForAccount(accountId: string, rescueSlug: string | null, query: PageQuery): Promise<RowsPage<ImageRow>> {
    return pageOfRows(this.dataSource, { table: 'images', columns: COLUMNS, where: VISIBLE, params: [accountId, rescueSlug] }, query);
  }

  async findForAccount(
    accountId: string,
    rescueSlug: string | null,
    id: string,
    manager: EntityManager = this.dataSource.manager,
  ): Promise<ImageRow | null> {
    const row = await sqlFirst<ImageRow>(manager, `SELECT ${COLUMNS} FROM images WHERE id = $3 AND ${VISIBLE}`, [
      accountId,
      rescueSlug,
      id,
    ]);
    return row ?? null;
  }

  /**
   * An available image the account may install, by slug or id: a system image or one of its own
   * snapshots. Read FOR SHARE, so a snapshot's deletion waits for the rebuild that chose it (and then sees it used).
   */
  findAvailable(manager: EntityManager, accountId: string, rescueSlug: string | null, slugOrId: string): Promise<ImageRow | null> {
    return sqlFirst<ImageRow>(
      manager,
      `SELECT ${COLUMNS} FROM images WHERE ${isUuidText(slugOrId) ? 'id = $3::uuid' : 'slug = $3'} AND status = 'available'
          AND (${customerSystemImage('$2')} OR account_id = $1) FOR SHARE`,
      [accountId, rescueSlug, slugOrId],
    );
  }

  /** One of the account's live snapshots, locked for a change. */
  lockSnapshot(manager: EntityManager, accountId: string, id: string): Promise<ImageRow | null> {
    return sqlFirst<ImageRow>(
      manager,
      `SELECT ${COLUMNS} FROM images WHERE id = $2 AND account_id = $1 AND status <> 'deleted' FOR UPDATE`,
      [accountId, id],
    );
  }

  /** Serialises the account's snapshot requests for the limit check (an advisory lock, held to the end of the transaction). */
  async lockAccountSnapshots(manager: EntityManager, accountId: string): Promise<void> {
    await runSql(manager, `SELECT pg_advisory_xact_lock(hashtext('images.snapshots'), hashtext($1))`, [accountId]);
  }

  async countSnapshots(manager: EntityManager, accountId: string): Promise<number> {
    const row = await sqlFirst<{ n: number }>(
      manager,
      `SELECT count(*)::int AS n FROM images WHERE account_id = $1 AND status <> 'deleted'`,
      [accountId],
    );
    return row?.n ?? 0;
  }

  /** A snapshot being made; its slug is `snapshot-` and the first 12 hex digits of its id. */
  async insertSnapshot(manager: EntityManager, s: NewSnapshot): Promise<ImageRow> {
    const row = await sqlFirst<ImageRow>(
      manager,
      `WITH new AS (SELECT gen_random_uuid() AS id)
       INSERT INTO images (id, slug, name, os_family, os_version, min_disk_gb, format, size_bytes, status, type, account_id, created_from_service_id)
       SELECT new.id, 'snapshot-' || left(new.id::text, 13), $3, coalesce(src.os_family, 'linux'), coalesce(src.os_version, 'unknown'),
              $5, 'qcow2', 0, 'creating', 'snapshot', $1, $2
         FROM new LEFT JOIN images src ON src.id = $4::uuid
       RETURNING ${COLUMNS}`,
      [s.accountId, s.serviceId, s.name, s.sourceImageId, s.minDiskGb],
    );
    return row!;
  }

  /** The end of a snapshot's action: available with its size, or gone. */
  async settleSnapshot(manager: EntityManager, id: string, sizeBytes: number | null): Promise<void> {
    await runSql(
      manager,
      sizeBytes === null
        ? `UPDATE images SET status = 'deleted', deleted_at = now() WHERE id = $1 AND status = 'creating'`
        : `UPDATE images SET status = 'available', size_bytes = $2 WHERE id = $1 AND status = 'creating'`,
      sizeBytes === null ? [id] : [id, sizeBytes],
    );
  }

  /** While `deleting`, `deleted_at` says when the deletion began. */
  async markDeleting(manager: EntityManager, id: string): Promise<void> {
    await runSql(manager, `UPDATE images SET status = 'deleting', deleted_at = now() WHERE id = $1`, [id]);
  }

  /** Of these ids (UUIDs), the images that are deleted (a deleted image never comes back). */
  async deletedAmong(ids: string[]): Promise<string[]> {
    if (!ids.length) return [];
    const rows = await sqlRows<{ id: string }>(this.dataSource, `SELECT id FROM images WHERE id = ANY($1::uuid[]) AND status = 'deleted'`, [
      ids,
    ]);
    return rows.map((r) => r.id);
  }

  /** False when it was not `deleting` (another deletion ended it). */
  async markDeleted(manager: EntityManager, id: string): Promise<boolean> {
    const { count } = await runSql(
      manager,
      `UPDATE images SET status = 'deleted', deleted_at = now() WHERE id = $1 AND status = 'deleting'`,
      [id],
    );
    return count > 0;
  }

  /** Snapshots `deleting` for longer than this (those marked before `deleted_at` said when count as stale). */
  staleDeleting(olderThanSeconds: number): Promise<ImageRow[]> {
    return sqlRows<ImageRow>(
      this.dataSource,
      `SELECT ${COLUMNS} FROM images
        WHERE status = 'deleting' AND account_id IS NOT NULL
          AND (deleted_at IS NULL OR deleted_at < now() - $1::double precision * interval '1 second')`,
      [olderThanSeconds],
    );
  }

  /** Operator: a live system image (snapshots are their accounts'). */
  async findSystemBySlug(slug: string): Promise<ImageRow | null> {
    const row = await sqlFirst<ImageRow>(
      this.dataSource,
      `SELECT ${COLUMNS} FROM images WHERE slug = $1 AND account_id IS NULL AND status <> 'deleted'`,
      [slug],
    );
    return row ?? null;
  }

  /**
   * The rescue system: the available system image of that slug (RESCUE_IMAGE), or without
   * one the newest marked `rescue`. Read FOR SHARE, as an image a rebuild chose.
   */
  findRescue(manager: EntityManager, slug: string | undefined): Promise<ImageRow | null> {
    return sqlFirst<ImageRow>(
      manager,
      `SELECT ${COLUMNS} FROM images WHERE account_id IS NULL AND status = 'available' AND ${slug ? 'slug = $1' : 'rescue AND $1::text IS NULL'}
        ORDER BY created_at DESC, id DESC LIMIT 1 FOR SHARE`,
      [slug ?? null],
    );
  }

  async insertUploading(image: NewImage): Promise<ImageRow> {
    const row = await sqlFirst<ImageRow>(
      this.dataSource,
      `INSERT INTO images (slug, name, os_family, os_version, min_disk_gb, format, size_bytes, status, rescue)
       VALUES ($1, $2, $3, $4, $5, $6, $7, 'uploading', $8) RETURNING ${COLUMNS}`,
      [image.slug, image.name, image.osFamily, image.osVersion, image.minDiskGb, image.format, image.sizeBytes, image.rescue ?? false],
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
      `INSERT INTO images (slug, name, os_family, os_version, min_disk_gb, format, size_bytes, status, rescue)
       SELECT $1::varchar, $2, $3, $4, $5::int, $6, $7::bigint, 'available', $8
        WHERE NOT EXISTS (SELECT 1 FROM images WHERE slug = $1::varchar AND status <> 'deleted')
       ON CONFLICT DO NOTHING`,
      [image.slug, image.name, image.osFamily, image.osVersion, image.minDiskGb, image.format, image.sizeBytes, image.rescue ?? false],
    );
  }

  /** Every available image's disk, system images and snapshots alike (a new host gets them all). */
  disks(): Promise<{ id: string; format: ImageFormat }[]> {
    return sqlRows(this.dataSource, `SELECT id, format FROM images WHERE status = 'available' ORDER BY created_at`);
  }

  async deleteRow(id: string): Promise<void> {
    await runSql(this.dataSource, `DELETE FROM images WHERE id = $1`, [id]);
  }

  /** Live VPSes whose disk is backed by the image (it cannot go while they exist). */
  async usedBy(id: string, manager: EntityManager = this.dataSource.manager): Promise<number> {
    const { n } = (await sqlFirst<{ n: number }>(
      manager,
      `SELECT count(*)::int AS n FROM vps_instances i JOIN services s ON s.id = i.service_id
        WHERE i.image_id = $1 AND s.status <> 'terminated'`,
      [id],
    ))!;
    return n;
  }
}
