import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { ActivityEntry, ActivityStatus, ActorType, PageQuery, pageOfRows, purgeBatchGivingWay, runSql, sqlFirst, sqlRows } from '@app/core';

/** An activity_events row as the driver returns it. */
interface ActivityRow {
  id: string;
  account_id: string;
  action: string;
  entity_type: string | null;
  entity_id: string | null;
  actor_type: ActorType;
  actor_id: string | null;
  actor_name: string | null;
  actor_member_id: string | null;
  actor_email: string | null;
  actor_key_id: string | null;
  ip: string | null;
  user_agent: string | null;
  request_id: string | null;
  status: ActivityStatus;
  details: Record<string, unknown>;
  created_at: Date;
}

export interface ActivityFilter {
  action?: string;
  entityType?: string;
  entityId?: string;
  actorMemberId?: string;
  since?: Date;
}

const COLUMNS = `id, account_id, action, entity_type, entity_id, actor_type, actor_id, actor_name, actor_member_id, actor_email,
  actor_key_id, ip, user_agent, request_id, status, details, created_at`;

function toEntry(row: ActivityRow): ActivityEntry {
  return {
    id: row.id,
    accountId: row.account_id,
    action: row.action,
    entity: row.entity_type && row.entity_id ? { type: row.entity_type, id: row.entity_id } : null,
    actor: {
      type: row.actor_type,
      id: row.actor_id,
      name: row.actor_name,
      memberId: row.actor_member_id,
      email: row.actor_email,
      keyId: row.actor_key_id,
    },
    ip: row.ip,
    userAgent: row.user_agent,
    requestId: row.request_id,
    status: row.status,
    details: row.details ?? {},
    createdAt: row.created_at,
  };
}

/** Purged per statement, so one purge never holds a long lock or a huge transaction. */
export const PURGE_BATCH = 5000;

@Injectable()
export class ActivityRepository {
  constructor(private readonly dataSource: DataSource) {}

  async insert(manager: EntityManager, entry: Omit<ActivityEntry, 'id' | 'createdAt'>): Promise<ActivityEntry> {
    const rows = await sqlRows<ActivityRow>(
      manager,
      `INSERT INTO activity_events (account_id, action, entity_type, entity_id, actor_type, actor_id, actor_name, ip, user_agent,
         request_id, status, details, actor_member_id, actor_email, actor_key_id)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12::jsonb, $13, $14, $15) RETURNING ${COLUMNS}`,
      [
        entry.accountId,
        entry.action,
        entry.entity?.type ?? null,
        entry.entity?.id ?? null,
        entry.actor.type,
        entry.actor.id,
        entry.actor.name?.slice(0, 200) ?? null,
        entry.ip,
        entry.userAgent,
        entry.requestId,
        entry.status,
        JSON.stringify(entry.details),
        entry.actor.memberId ?? null,
        entry.actor.email?.slice(0, 254) ?? null,
        entry.actor.keyId ?? null,
      ],
    );
    return toEntry(rows[0]);
  }

  async replaceDetails(manager: EntityManager, accountId: string, id: string, details: Record<string, unknown>): Promise<void> {
    await runSql(manager, `UPDATE activity_events SET details = $3::jsonb WHERE id = $1 AND account_id = $2`, [
      id,
      accountId,
      JSON.stringify(details),
    ]);
  }

  async page(accountId: string, query: PageQuery, filter: ActivityFilter): Promise<{ entries: ActivityEntry[]; total: number }> {
    const params: unknown[] = [accountId];
    const where = ['account_id = $1'];
    const counted = ['account_id = $1'];
    const add = (sql: string, value: unknown, countable = false) => {
      params.push(value);
      const condition = sql.replace('?', `$${params.length}`);
      where.push(condition);
      if (countable) counted.push(condition);
    };
    if (filter.action) add('action = ?', filter.action, true);
    if (filter.entityType) add('entity_type = ?', filter.entityType, true);
    if (filter.entityId) add('entity_id = ?::uuid', filter.entityId);
    if (filter.actorMemberId) add('actor_member_id = ?::uuid', filter.actorMemberId);
    if (filter.since) add('created_at >= ?', filter.since);
    // The total from the trigger-kept counters where they can give it; entityId, actor and
    // since count the rows they match.
    const totalSql =
      filter.entityId || filter.actorMemberId || filter.since
        ? undefined
        : `SELECT coalesce(sum(n), 0)::int AS total FROM activity_counts WHERE ${counted.join(' AND ')}`;
    const { rows, total } = await pageOfRows<ActivityRow>(
      this.dataSource,
      { table: 'activity_events', columns: COLUMNS, where: where.join(' AND '), params, totalSql },
      query,
    );
    return { entries: rows.map(toEntry), total };
  }

  async findOneForAccount(accountId: string, id: string): Promise<ActivityEntry | null> {
    const row = await sqlFirst<ActivityRow>(this.dataSource, `SELECT ${COLUMNS} FROM activity_events WHERE id = $1 AND account_id = $2`, [
      id,
      accountId,
    ]);
    return row ? toEntry(row) : null;
  }

  /**
   * Operator side, every account: one batch of entries older than the cutoff, found by the
   * created_at index and deleted by their ctid; it gives way to requests on the counters.
   */
  purgeBatch(before: Date): Promise<number> {
    return purgeBatchGivingWay(
      this.dataSource,
      `DELETE FROM activity_events
        WHERE ctid = ANY (ARRAY(SELECT ctid FROM activity_events WHERE created_at < $1 LIMIT ${PURGE_BATCH}))`,
      [before],
    );
  }
}
