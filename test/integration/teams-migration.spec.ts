import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { AppConfig, dataSourceOptions } from '@app/core';
import { allMigrations } from '../../apps/api/src/migrations';
import { TEST_DATABASE_URL } from '../support/test-env';

/** The first migration of teams: everything before it is the database a provider runs today. */
const TEAMS = 1764000004800;
const stamp = (migration: Function) => Number(/(\d{13})$/.exec(migration.name)![1]);

/**
 * Turning on teams on a database with customers in it: every account becomes a one-owner team of its
 * own login, its keys its owner's, its activity its owner's; nothing else changes. Run on a database
 * of its own, migrated in two steps as an upgrade does.
 */
describe('The teams migrations on an existing database', () => {
  let before: DataSource;
  let after: DataSource;
  let dropDatabase = async () => {};
  let dataDir: string | undefined;

  beforeAll(async () => {
    let config: Partial<AppConfig>;
    if (TEST_DATABASE_URL) {
      const name = `teams_migration_${randomUUID().replace(/-/g, '')}`;
      const admin = new Client({ connectionString: TEST_DATABASE_URL });
      await admin.connect();
      await admin.query(`CREATE DATABASE ${name}`);
      await admin.end();
      const url = new URL(TEST_DATABASE_URL);
      url.pathname = `/${name}`;
      config = { databaseUrl: url.toString(), dbPoolSize: 2, dbStatementTimeoutMs: 0 };
      dropDatabase = async () => {
        const c = new Client({ connectionString: TEST_DATABASE_URL });
        await c.connect();
        await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
        await c.end();
      };
    } else {
      dataDir = mkdtempSync(join(tmpdir(), 'teams-migration-'));
      config = { dataDir };
    }
    before = new DataSource(dataSourceOptions(config as AppConfig, { migrations: allMigrations.filter((m) => stamp(m) < TEAMS) }));
    await before.initialize();
    await before.runMigrations();
  });
  afterAll(async () => {
    if (before?.isInitialized) await before.destroy();
    if (after?.isInitialized) await after.destroy();
    await dropDatabase();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('makes each account a team of its owner and gives it its keys and its activity, changing nothing else', async () => {
    const accounts = [randomUUID(), randomUUID()];
    for (const [i, id] of accounts.entries()) {
      await before.query(
        `INSERT INTO accounts (id, email, name, password_hash, created_at) VALUES ($1, $2, $3, 'x', now() - interval '1 day')`,
        [id, `owner-${i}-${id}@example.test`, `Owner ${i}`],
      );
    }
    const [key] = await before.query(
      `INSERT INTO api_keys (account_id, name, prefix, key_hash, scopes) VALUES ($1, 'ci', 'hpk_ci', $2, ARRAY['read']) RETURNING id`,
      [accounts[0], 'a'.repeat(64)],
    );
    await before.query(`INSERT INTO sessions (account_id, expires_at) VALUES ($1, now() + interval '1 day')`, [accounts[1]]);
    await before.query(
      `INSERT INTO activity_events (account_id, action, actor_type, actor_id, actor_name, status, details)
        VALUES ($1::uuid, 'ssh_key.create', 'account', $2, 'Owner 0', 'succeeded', '{}'),
               ($1::uuid, 'ssh_key.delete', 'api_key', $3, 'ci', 'succeeded', '{}'),
               ($1::uuid, 'service.create', 'system', NULL, NULL, 'succeeded', '{}')`,
      [accounts[0], accounts[0], key.id],
    );
    const snapshot = () =>
      Promise.all([
        before.query(`SELECT id, email, name, password_hash, created_at FROM accounts ORDER BY id`),
        before.query(`SELECT id, account_id, scopes, revoked_at FROM api_keys ORDER BY id`),
        before.query(`SELECT id, account_id, expires_at, revoked_at FROM sessions ORDER BY id`),
        before.query(`SELECT id, action, actor_type, actor_id, actor_name FROM activity_events ORDER BY id`),
      ]);
    const was = await snapshot();
    await before.destroy();

    after = new DataSource(dataSourceOptionsLike(before));
    await after.initialize();
    expect((await after.runMigrations()).map((m) => m.name).every((name) => stamp({ name } as Function) >= TEAMS)).toBe(true);
    before = after;
    expect(await snapshot()).toEqual(was);

    const members = await after.query(
      `SELECT account_id, login_id, role, joined_at, a.created_at FROM account_members m JOIN accounts a ON a.id = m.account_id ORDER BY account_id`,
    );
    expect(members).toEqual(
      [...accounts]
        .sort()
        .map((id) => ({ account_id: id, login_id: id, role: 'owner', joined_at: expect.any(Date), created_at: expect.any(Date) })),
    );
    for (const m of members) expect(m.joined_at.getTime()).toBe(m.created_at.getTime());
    const [owner0] = await after.query(`SELECT id FROM account_members WHERE account_id = $1`, [accounts[0]]);
    expect(await after.query(`SELECT member_id FROM api_keys WHERE id = $1`, [key.id])).toEqual([{ member_id: owner0.id }]);
    expect(await after.query(`SELECT current_account_id FROM sessions WHERE account_id = $1`, [accounts[1]])).toEqual([
      { current_account_id: null },
    ]);
    expect(await after.query(`SELECT action, actor_member_id, actor_email, actor_key_id FROM activity_events ORDER BY action`)).toEqual([
      { action: 'service.create', actor_member_id: null, actor_email: null, actor_key_id: null },
      { action: 'ssh_key.create', actor_member_id: owner0.id, actor_email: `owner-0-${accounts[0]}@example.test`, actor_key_id: null },
      { action: 'ssh_key.delete', actor_member_id: owner0.id, actor_email: `owner-0-${accounts[0]}@example.test`, actor_key_id: key.id },
    ]);
    // An account made after the upgrade, by any path, is a team of its own too; a key written without a member is its owner's.
    const later = randomUUID();
    await after.query(`INSERT INTO accounts (id, email, name, password_hash) VALUES ($1, $2, 'Later', 'x')`, [
      later,
      `later-${later}@example.test`,
    ]);
    const [laterKey] = await after.query(
      `INSERT INTO api_keys (account_id, name, prefix, key_hash, scopes) VALUES ($1, 'seed', 'hpk_seed', $2, ARRAY['read']) RETURNING member_id`,
      [later, 'b'.repeat(64)],
    );
    expect(await after.query(`SELECT id, role FROM account_members WHERE account_id = $1 AND login_id = $1`, [later])).toEqual([
      { id: laterKey.member_id, role: 'owner' },
    ]);
  });
});

/** The same database with every migration. */
function dataSourceOptionsLike(previous: DataSource) {
  return { ...previous.options, migrations: allMigrations } as typeof previous.options;
}
