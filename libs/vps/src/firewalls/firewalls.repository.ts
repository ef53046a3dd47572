import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { countRows, isoText, PageQuery, pageOfRows, RowsPage, runSql, sqlFirst, sqlRows } from '@app/core';
import type { FirewallRule } from './firewall-rules';

export type AttachmentStatus = 'pending' | 'applied' | 'failed';

export interface FirewallRow {
  id: string;
  name: string;
  rules: FirewallRule[];
  createdAt: string;
  updatedAt: string;
  appliedTo: { serviceId: string; status: AttachmentStatus }[];
}

/** A VPS a firewall may be applied to, as the caller's account sees it. */
export interface FirewallTarget {
  id: string;
  type: string;
  status: string;
  networkMode: 'user' | 'bridge' | null;
}

/** The firewalls a VPS's hypervisor is to enforce, with the generation each attachment was read at. */
export interface ServiceFirewall {
  firewallId: string;
  rules: FirewallRule[];
  generation: number;
}

const COLUMNS = `id, name, rules, ${isoText('created_at')} AS "createdAt", ${isoText('updated_at')} AS "updatedAt",
  coalesce((SELECT json_agg(json_build_object('serviceId', a.service_id, 'status', a.status) ORDER BY a.created_at, a.service_id)
              FROM firewall_attachments a WHERE a.firewall_id = firewalls.id), '[]') AS "appliedTo"`;

/** Every statement on firewalls and their attachments, owner-scoped where a caller names one. */
@Injectable()
export class FirewallsRepository {
  constructor(private readonly dataSource: DataSource) {}

  countForAccount(manager: EntityManager, accountId: string): Promise<number> {
    return countRows(manager, 'firewalls', 'account_id = $1', [accountId]);
  }

  async insert(manager: EntityManager, accountId: string, name: string, rules: FirewallRule[]): Promise<string> {
    const row = await sqlFirst<{ id: string }>(
      manager,
      `INSERT INTO firewalls (account_id, name, rules) VALUES ($1, $2, $3::jsonb) RETURNING id`,
      [accountId, name, JSON.stringify(rules)],
    );
    return row!.id;
  }

  pageForAccount(accountId: string, query: PageQuery): Promise<RowsPage<FirewallRow>> {
    return pageOfRows<FirewallRow>(
      this.dataSource,
      { table: 'firewalls', columns: COLUMNS, where: 'account_id = $1', params: [accountId] },
      query,
    );
  }

  findOneForAccount(accountId: string, id: string, manager?: EntityManager): Promise<FirewallRow | null> {
    return sqlFirst<FirewallRow>(manager ?? this.dataSource, `SELECT ${COLUMNS} FROM firewalls WHERE id = $1 AND account_id = $2`, [
      id,
      accountId,
    ]);
  }

  /** Locks the account's firewall for a change; false when it has none of this id. */
  async lockForAccount(manager: EntityManager, accountId: string, id: string): Promise<boolean> {
    return !!(await sqlFirst(manager, `SELECT 1 FROM firewalls WHERE id = $1 AND account_id = $2 FOR UPDATE`, [id, accountId]));
  }

  async update(manager: EntityManager, id: string, change: { name?: string; rules?: FirewallRule[] }): Promise<void> {
    await runSql(
      manager,
      `UPDATE firewalls SET name = coalesce($2, name), rules = coalesce($3::jsonb, rules), updated_at = now() WHERE id = $1`,
      [id, change.name ?? null, change.rules ? JSON.stringify(change.rules) : null],
    );
  }

  async delete(manager: EntityManager, id: string): Promise<void> {
    await runSql(manager, `DELETE FROM firewalls WHERE id = $1`, [id]);
  }

  /** The account's services of these ids, with what decides whether a firewall can be applied. */
  targetsForAccount(manager: EntityManager, accountId: string, serviceIds: string[]): Promise<FirewallTarget[]> {
    return sqlRows<FirewallTarget>(
      manager,
      `SELECT s.id, s.type, s.status, i.network->>'mode' AS "networkMode"
         FROM services s LEFT JOIN vps_instances i ON i.service_id = s.id
        WHERE s.account_id = $1 AND s.id = ANY($2::uuid[])`,
      [accountId, serviceIds],
    );
  }

  /** Attaches the firewall (an attachment already there stays as it is); returns the services newly attached. */
  async attach(manager: EntityManager, firewallId: string, serviceIds: string[]): Promise<string[]> {
    const rows = await sqlRows<{ service_id: string }>(
      manager,
      `INSERT INTO firewall_attachments (firewall_id, service_id) SELECT $1, unnest($2::uuid[])
       ON CONFLICT DO NOTHING RETURNING service_id`,
      [firewallId, serviceIds],
    );
    return rows.map((row) => row.service_id);
  }

  /** Returns the services it was detached from. */
  async detach(manager: EntityManager, firewallId: string, serviceIds: string[]): Promise<string[]> {
    const rows = await sqlRows<{ service_id: string }>(
      manager,
      `DELETE FROM firewall_attachments WHERE firewall_id = $1 AND service_id = ANY($2::uuid[]) RETURNING service_id`,
      [firewallId, serviceIds],
    );
    return rows.map((row) => row.service_id);
  }

  /** Every attachment of the firewall back to pending (its rules changed); returns the services it is applied to. */
  async touchAttachments(manager: EntityManager, firewallId: string): Promise<string[]> {
    const rows = await sqlRows<{ service_id: string }>(
      manager,
      `UPDATE firewall_attachments SET status = 'pending', generation = generation + 1 WHERE firewall_id = $1 RETURNING service_id`,
      [firewallId],
    );
    return rows.map((row) => row.service_id);
  }

  /** Removes a terminated VPS from every firewall. */
  async detachService(manager: EntityManager, serviceId: string): Promise<void> {
    await runSql(manager, `DELETE FROM firewall_attachments WHERE service_id = $1`, [serviceId]);
  }

  firewallsOf(serviceId: string): Promise<ServiceFirewall[]> {
    return sqlRows<ServiceFirewall>(
      this.dataSource,
      `SELECT f.id AS "firewallId", f.rules, a.generation
         FROM firewall_attachments a JOIN firewalls f ON f.id = a.firewall_id
        WHERE a.service_id = $1 ORDER BY a.created_at, f.id`,
      [serviceId],
    );
  }

  /** Marks the attachments read at these generations; one changed since stays pending for the next run. */
  async markSynced(serviceId: string, seen: ServiceFirewall[], status: 'applied' | 'failed'): Promise<void> {
    if (!seen.length) return;
    await runSql(
      this.dataSource,
      `UPDATE firewall_attachments a SET status = $2
         FROM unnest($3::uuid[], $4::int[]) AS seen(firewall_id, generation)
        WHERE a.service_id = $1 AND a.firewall_id = seen.firewall_id AND a.generation = seen.generation`,
      [serviceId, status, seen.map((f) => f.firewallId), seen.map((f) => f.generation)],
    );
  }
}
