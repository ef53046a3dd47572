import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { isoText, runSql, sqlFirst, sqlRows } from '@app/core';

export interface RescueRow {
  service_id: string;
  image_id: string;
  action_id: string;
  started_at: string;
  ends_at: string;
}

const COLUMNS = `service_id, image_id, action_id, ${isoText('started_at')} AS started_at, ${isoText('ends_at')} AS ends_at`;

/** All SQL on vps_rescues: a row while a VPS is (being) booted from the rescue system. */
@Injectable()
export class VpsRescuesRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Read under the service row lock the caller holds. */
  find(manager: EntityManager, serviceId: string): Promise<RescueRow | null> {
    return sqlFirst<RescueRow>(manager, `SELECT ${COLUMNS} FROM vps_rescues WHERE service_id = $1`, [serviceId]);
  }

  /** Whether the VPS is in rescue mode now (no lock: a request's early refusal). */
  async active(serviceId: string): Promise<boolean> {
    return !!(await sqlFirst(this.dataSource, `SELECT 1 FROM vps_rescues WHERE service_id = $1`, [serviceId]));
  }

  async insert(manager: EntityManager, serviceId: string, imageId: string, actionId: string, hours: number): Promise<RescueRow> {
    const row = await sqlFirst<RescueRow>(
      manager,
      `INSERT INTO vps_rescues (service_id, image_id, action_id, ends_at) VALUES ($1, $2, $3, now() + $4::int * interval '1 hour')
       RETURNING ${COLUMNS}`,
      [serviceId, imageId, actionId, hours],
    );
    return row!;
  }

  /** The rescue ended: the VPS booted its own disk again (the unrescue action `actionId` succeeded). */
  async remove(manager: EntityManager, serviceId: string): Promise<void> {
    await runSql(manager, `DELETE FROM vps_rescues WHERE service_id = $1`, [serviceId]);
  }

  /** Unscoped, for the expiry job: rescues past their end whose VPS is active and runs no action now. */
  async expired(limit = 100): Promise<string[]> {
    const rows = await sqlRows<{ service_id: string }>(
      this.dataSource,
      `SELECT r.service_id FROM vps_rescues r JOIN services s ON s.id = r.service_id AND s.status = 'active'
        WHERE r.ends_at <= now()
          AND NOT EXISTS (SELECT 1 FROM instance_actions a WHERE a.service_id = r.service_id AND a.status = 'running')
        ORDER BY r.ends_at LIMIT $1`,
      [limit],
    );
    return rows.map((row) => row.service_id);
  }
}
