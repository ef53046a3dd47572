import { DataSource } from 'typeorm';
import { ActivityAction, ActivityLog, Principal, TransactionRunner } from '@app/core';
import { ActivityRetentionJob } from '@app/events';
import { EventsService } from '../../libs/events/src/events.service';
import { startTestModule, TestModule } from '../support/test-module';

describe('ActivityLog and its retention (TestingModule on the real database)', () => {
  let m: TestModule;
  let log: ActivityLog;
  let tx: TransactionRunner;
  let db: DataSource;
  beforeAll(async () => {
    m = await startTestModule([], { EVENTS_RETENTION_DAYS: '30' });
    log = m.get(ActivityLog);
    tx = m.get(TransactionRunner);
    db = m.get(DataSource);
  });
  afterAll(() => m.close());

  const record = (accountId: string, action: ActivityAction = 'ssh_key.create') =>
    tx.run((manager) => log.record(manager, { accountId, action, entity: null, details: { n: 1 } }));
  const idsOf = async (accountId: string) =>
    ((await db.query('SELECT id FROM activity_events WHERE account_id = $1', [accountId])) as { id: string }[]).map((r) => r.id).sort();

  it('purges entries older than EVENTS_RETENTION_DAYS and keeps the newer ones', async () => {
    const accountId = await m.accountId();
    const old = await record(accountId);
    const edge = await record(accountId);
    const fresh = await record(accountId);
    await db.query(`UPDATE activity_events SET created_at = now() - interval '31 days' WHERE id = $1`, [old.id]);
    await db.query(`UPDATE activity_events SET created_at = now() - interval '29 days' WHERE id = $1`, [edge.id]);
    const purged = await m.get(ActivityRetentionJob).purge();
    expect(purged).toBeGreaterThanOrEqual(1);
    expect(await idsOf(accountId)).toEqual([edge.id, fresh.id].sort());
  });

  it("keeps the list's totals (trigger-kept counters) right through recording, the purge and the account's deletion", async () => {
    const accountId = await m.accountId();
    const entity = { type: 'service', id: '6d9b4d0c-5a1e-4f3b-8c2d-1e0f9a8b7c6d' };
    const record2 = (action: ActivityAction, about: typeof entity | null) =>
      tx.run((manager) => log.record(manager, { accountId, action, entity: about, details: {} }));
    await record2('instance.stop', entity);
    await record2('instance.stop', entity);
    await record2('instance.start', entity);
    const old = await record2('ssh_key.create', null);
    await record2('ssh_key.create', null);
    await db.query(`UPDATE activity_events SET created_at = now() - interval '31 days' WHERE id = $1`, [old.id]);
    await m.get(ActivityRetentionJob).purge();
    const events = m.get(EventsService);
    const total = async (filter: Record<string, string>) => (await events.list(accountId, { page: 1, pageSize: 1, ...filter })).total;
    expect(await total({})).toBe(4);
    expect(await total({ action: 'instance.stop' })).toBe(2);
    expect(await total({ entityType: 'service' })).toBe(3);
    expect(await total({ action: 'instance.stop', entityType: 'service' })).toBe(2);
    expect(await total({ action: 'ssh_key.create' })).toBe(1);
    expect(await total({ entityType: 'ticket' })).toBe(0);
    expect(await total({ entityId: entity.id })).toBe(3);
    // Counted again from the rows: the counters agree.
    const [{ n }] = await db.query('SELECT count(*)::int AS n FROM activity_events WHERE account_id = $1', [accountId]);
    expect(n).toBe(4);
    await db.query('DELETE FROM accounts WHERE id = $1', [accountId]);
    expect(await db.query('SELECT count(*)::int AS n FROM activity_counts WHERE account_id = $1', [accountId])).toEqual([{ n: 0 }]);
  });

  it('runs the registered hooks in the recording transaction: a rollback takes the entry and what the hook wrote', async () => {
    const accountId = await m.accountId();
    const seen: string[] = [];
    log.onRecorded(async (manager, entry) => {
      if (entry.accountId !== accountId) return;
      seen.push(entry.action);
      // The hook's own write, in the same transaction.
      await manager.query(`UPDATE activity_events SET details = details || '{"hooked": true}'::jsonb WHERE id = $1`, [entry.id]);
    });
    const kept = await record(accountId, 'ticket.create');
    await expect(
      tx.run(async (manager) => {
        await log.record(manager, { accountId, action: 'ticket.close', entity: null });
        throw new Error('the change failed');
      }),
    ).rejects.toThrow('the change failed');
    expect(seen).toEqual(['ticket.create', 'ticket.close']);
    const rows = await db.query('SELECT action, details FROM activity_events WHERE account_id = $1', [accountId]);
    expect(rows).toEqual([{ action: 'ticket.create', details: { n: 1, hooked: true } }]);
    expect(kept.actor).toEqual({ type: 'system', id: null, name: null, memberId: null, email: null, keyId: null });
  });

  it("takes the actor and the request facts from the caller, a public route's facts from the request", async () => {
    const accountId = await m.accountId('Ada Lovelace');
    const request = { requestId: 'req-12345678', ip: '203.0.113.9', userAgent: 'test/1' };
    const caller: Principal = {
      accountId,
      loginId: accountId,
      email: 'ada@example.test',
      memberId: null,
      role: 'owner',
      kind: 'access_token',
      credentialId: accountId,
      scopes: ['read', 'write'],
      expiresAt: null,
      request,
    };
    const entry = await tx.run((manager) => log.record(manager, { accountId, action: 'ssh_key.create', entity: null, caller }));
    expect(entry).toMatchObject({ ...request, actor: { type: 'account', id: accountId, name: 'Ada Lovelace' } });
    const byKey = await tx.run((manager) =>
      log.record(manager, {
        accountId,
        action: 'ssh_key.create',
        entity: null,
        caller: {
          accountId,
          loginId: accountId,
          email: 'ada@example.test',
          memberId: null,
          role: 'owner',
          kind: 'api_key',
          credentialId: accountId,
          scopes: ['write'],
          expiresAt: null,
          name: 'ci',
        },
      }),
    );
    expect(byKey).toMatchObject({ actor: { type: 'api_key', id: accountId, name: 'ci' }, requestId: null, ip: null, userAgent: null });
    const publicRoute = await tx.run((manager) =>
      log.record(manager, {
        accountId,
        action: 'auth.login',
        entity: null,
        actor: { type: 'account', id: accountId, name: 'Ada' },
        request,
      }),
    );
    expect(publicRoute).toMatchObject({ ...request, actor: { type: 'account', id: accountId, name: 'Ada' } });
  });

  it('refuses details that look like secrets', async () => {
    const accountId = await m.accountId();
    await expect(
      tx.run((manager) => log.record(manager, { accountId, action: 'api_key.create', entity: null, details: { key: 'hk_live_x' } })),
    ).rejects.toThrow(/may not carry secrets/);
    expect(await idsOf(accountId)).toEqual([]);
  });
});
