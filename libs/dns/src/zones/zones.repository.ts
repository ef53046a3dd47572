import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { countRows, isoText, PageQuery, pageOfRows, RowsPage, runSql, sqlFirst, sqlRows } from '@app/core';

export interface ZoneRow {
  id: string;
  accountId: string;
  name: string;
  serial: string;
  createdAt: string;
}

const COLUMNS = `id, account_id AS "accountId", name, serial::text AS serial, ${isoText('created_at')} AS "createdAt"`;

/** Every statement on DNS zones, owner-scoped where a caller names one. */
@Injectable()
export class ZonesRepository {
  constructor(private readonly dataSource: DataSource) {}

  countForAccount(manager: EntityManager, accountId: string): Promise<number> {
    return countRows(manager, 'dns_zones', 'account_id = $1', [accountId]);
  }

  /** Whether a zone of this name, or one containing it or within it, is held by anyone but this account (or by it under this very name). */
  async nameTaken(manager: EntityManager, accountId: string, name: string): Promise<boolean> {
    const row = await sqlFirst(
      manager,
      `SELECT 1 FROM dns_zones
        WHERE name = $2
           OR (account_id <> $1 AND (right($2, length(name) + 1) = '.' || name OR right(name, length($2) + 1) = '.' || $2))
        LIMIT 1`,
      [accountId, name],
    );
    return !!row;
  }

  async insert(manager: EntityManager, accountId: string, name: string, serial: number): Promise<string> {
    const row = await sqlFirst<{ id: string }>(
      manager,
      `INSERT INTO dns_zones (account_id, name, serial) VALUES ($1, $2, $3) RETURNING id`,
      [accountId, name, serial],
    );
    return row!.id;
  }

  pageForAccount(accountId: string, query: PageQuery): Promise<RowsPage<ZoneRow>> {
    return pageOfRows<ZoneRow>(
      this.dataSource,
      { table: 'dns_zones', columns: COLUMNS, where: 'account_id = $1', params: [accountId] },
      query,
    );
  }

  findOneForAccount(accountId: string, id: string, manager?: EntityManager): Promise<ZoneRow | null> {
    return sqlFirst<ZoneRow>(manager ?? this.dataSource, `SELECT ${COLUMNS} FROM dns_zones WHERE id = $1 AND account_id = $2`, [
      id,
      accountId,
    ]);
  }

  /** The account's zone, locked for a change; null when it has none of this id. */
  lockForAccount(manager: EntityManager, accountId: string, id: string): Promise<ZoneRow | null> {
    return sqlFirst<ZoneRow>(manager, `SELECT ${COLUMNS} FROM dns_zones WHERE id = $1 AND account_id = $2 FOR UPDATE`, [id, accountId]);
  }

  /** Serialises every change of a zone name, held or not (a create and a repair of the same name). */
  async lockName(manager: EntityManager, name: string): Promise<void> {
    await runSql(manager, `SELECT pg_advisory_xact_lock(hashtext('dns-zone:' || $1))`, [name]);
  }

  lockByName(manager: EntityManager, name: string): Promise<ZoneRow | null> {
    return sqlFirst<ZoneRow>(manager, `SELECT ${COLUMNS} FROM dns_zones WHERE name = $1 FOR UPDATE`, [name]);
  }

  /** The provider's zone of this name (a reverse zone), made if missing, locked for a change. */
  async providerZone(manager: EntityManager, name: string, serial: number): Promise<ZoneRow> {
    await runSql(manager, `INSERT INTO dns_zones (account_id, name, serial) VALUES (NULL, $1, $2) ON CONFLICT (name) DO NOTHING`, [
      name,
      serial,
    ]);
    return (await this.lockByName(manager, name))!;
  }

  async setSerial(manager: EntityManager, id: string, serial: number): Promise<void> {
    await runSql(manager, `UPDATE dns_zones SET serial = $2, updated_at = now() WHERE id = $1`, [id, serial]);
  }

  async delete(manager: EntityManager, id: string): Promise<void> {
    await runSql(manager, `DELETE FROM dns_zones WHERE id = $1`, [id]);
  }

  /** Every customer zone (the reverse zones are the provider's), for the reconciliation with the DNS servers. */
  all(): Promise<ZoneRow[]> {
    return sqlRows<ZoneRow>(this.dataSource, `SELECT ${COLUMNS} FROM dns_zones WHERE account_id IS NOT NULL ORDER BY name`);
  }
}
