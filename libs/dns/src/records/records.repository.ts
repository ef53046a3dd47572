import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { PageQuery, pageOfRows, RowsPage, runSql, sqlFirst, sqlRows } from '@app/core';
import type { DnsRecordData } from './dns-record';

export interface RecordRow extends DnsRecordData {
  id: string;
}

const COLUMNS = `id, name, type, ttl, value, priority, weight, port`;

/** Every statement on a zone's records; the zone's ownership is checked (and the zone locked) by the caller. */
@Injectable()
export class RecordsRepository {
  constructor(private readonly dataSource: DataSource) {}

  pageOfZone(zoneId: string, query: PageQuery): Promise<RowsPage<RecordRow>> {
    return pageOfRows<RecordRow>(
      this.dataSource,
      { table: 'dns_records', columns: COLUMNS, where: 'zone_id = $1', params: [zoneId], orderBy: 'created_at, id' },
      query,
    );
  }

  /** The zone's records in the order they were made. */
  ofZone(zoneId: string, manager?: EntityManager): Promise<RecordRow[]> {
    return sqlRows<RecordRow>(manager ?? this.dataSource, `SELECT ${COLUMNS} FROM dns_records WHERE zone_id = $1 ORDER BY created_at, id`, [
      zoneId,
    ]);
  }

  findInZone(zoneId: string, id: string, manager?: EntityManager): Promise<RecordRow | null> {
    return sqlFirst<RecordRow>(manager ?? this.dataSource, `SELECT ${COLUMNS} FROM dns_records WHERE zone_id = $1 AND id = $2`, [
      zoneId,
      id,
    ]);
  }

  async insert(manager: EntityManager, zoneId: string, records: DnsRecordData[]): Promise<string[]> {
    if (!records.length) return [];
    const rows = await sqlRows<{ id: string }>(
      manager,
      `INSERT INTO dns_records (zone_id, name, type, ttl, value, priority, weight, port, created_at)
       SELECT $1, r.name, r.type, r.ttl, r.value, r.priority, r.weight, r.port, clock_timestamp() + r.n * interval '1 microsecond'
         FROM jsonb_to_recordset($2::jsonb) AS r(n int, name text, type text, ttl int, value text, priority int, weight int, port int)
        ORDER BY r.n
       RETURNING id`,
      [zoneId, JSON.stringify(records.map((record, n) => ({ ...record, n })))],
    );
    return rows.map((row) => row.id);
  }

  async update(manager: EntityManager, id: string, record: DnsRecordData): Promise<void> {
    await runSql(
      manager,
      `UPDATE dns_records SET name = $2, type = $3, ttl = $4, value = $5, priority = $6, weight = $7, port = $8 WHERE id = $1`,
      [id, record.name, record.type, record.ttl, record.value, record.priority, record.weight, record.port],
    );
  }

  /** One TTL for every record of a name and type (RFC 2181 §5.2: an RRset has one). */
  async setSetTtl(manager: EntityManager, zoneId: string, name: string, type: string, ttl: number): Promise<void> {
    await runSql(manager, `UPDATE dns_records SET ttl = $4 WHERE zone_id = $1 AND name = $2 AND type = $3 AND ttl <> $4`, [
      zoneId,
      name,
      type,
      ttl,
    ]);
  }

  async delete(manager: EntityManager, id: string): Promise<void> {
    await runSql(manager, `DELETE FROM dns_records WHERE id = $1`, [id]);
  }

  async deleteAllOfZone(manager: EntityManager, zoneId: string): Promise<void> {
    await runSql(manager, `DELETE FROM dns_records WHERE zone_id = $1`, [zoneId]);
  }
}
