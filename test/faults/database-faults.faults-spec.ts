import type { Client as PgClient } from 'pg';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { isDatabaseUnavailable } from '../../libs/core/src/errors/database-errors';
import { createAccount, TestAccount } from '../factories/accounts';
import { startTestApp, TestApp } from '../support/test-app';
import { waitForOrFail } from '../support/wait-for';
import { admin, FAULTS_URL, startCluster, stopCluster } from './cluster';
import { capturedLog } from '../support/captured-log';

describe('Database faults', () => {
  let t: TestApp;
  let account: TestAccount;
  beforeAll(async () => {
    t = await startTestApp({ DATABASE_URL: FAULTS_URL, DB_POOL_SIZE: '4', DB_STATEMENT_TIMEOUT_MS: '1000' });
    account = await createAccount(t);
  });
  afterAll(async () => {
    try {
      startCluster();
    } finally {
      await t.close();
    }
  });

  const me = () => request(t.http).get('/api/auth/me').set('Authorization', account.keyBearer);

  it('answers 503 problems quickly while PostgreSQL is down, and serves again when it is back', async () => {
    await me().expect(200);
    const load = Promise.all(Array.from({ length: 20 }, () => me().then((r) => r.status)));
    stopCluster();
    const during = await load;
    expect(during.every((status) => status === 200 || status === 503)).toBe(true);

    // Answered while the server is still down: nothing waits for it to come back.
    const statuses = await Promise.all(Array.from({ length: 10 }, () => me()));
    for (const res of statuses) {
      expect(res.status).toBe(503);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(res.body.code).toBe('unavailable');
      expect(JSON.stringify(res.body)).not.toMatch(/ECONNREFUSED|5439|postgres/i);
    }
    await request(t.http).get('/health/ready').expect(503);
    await request(t.http).get('/health/live').expect(200);

    startCluster();
    await waitForOrFail(
      () => me().then((r) => r.status),
      (status) => status === 200,
      5000,
      (status) => `GET /api/auth/me still answers ${status} after 5000 ms`,
    );
    await request(t.http).get('/health/ready').expect(200);
  });

  it('survives idle connections killed by the server', async () => {
    await Promise.all(Array.from({ length: 4 }, () => me().expect(200)));
    const db = await admin();
    try {
      const killed = await db.query(
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'hosting-account-api' AND pid <> pg_backend_pid()`,
      );
      expect(killed.rowCount).toBeGreaterThan(0);
    } finally {
      await db.end();
    }
    await waitForOrFail(
      () => me().then((r) => r.status),
      (status) => status === 200,
      5000,
      (status) => `GET /api/auth/me still answers ${status} after 5000 ms`,
    );
    await me().expect(200);
  });

  // TypeORM holds a pooled connection with no `error` listener of its own in two places: its
  // afterConnect (at start, across its extension queries) and from the pool's callback until the
  // query runner's listener is attached. A termination arriving then was an unhandled `error` event
  // on the pg Client: the process ended (the soak's replica at a PostgreSQL restart, docs/soak.md).
  it('survives a connection terminated while TypeORM holds it without a listener of its own', async () => {
    const driver = t.app.get(DataSource).driver as unknown as {
      obtainMasterConnection(): Promise<[PgClient, (err?: Error) => void]>;
    };
    const [client, release] = await driver.obtainMasterConnection();
    const ended = new Promise((resolve) => client.once('end', resolve));
    const db = await admin();
    try {
      const killed = await db.query('SELECT pg_terminate_backend($1)', [(client as unknown as { processID: number }).processID]);
      expect(killed.rows[0].pg_terminate_backend).toBe(true);
    } finally {
      await db.end();
    }
    await ended;
    const failed = await client.query('SELECT 1').then(
      () => null,
      (err: Error) => err,
    );
    expect(failed?.message).toMatch(/not queryable|terminat/i);
    release(failed ?? undefined);
    await me().expect(200);
  });

  it('answers 503, not 500, for a transaction whose connection the server terminated part-way', async () => {
    const thrown = await t.app
      .get(DataSource)
      .transaction(async (manager) => {
        const [{ pid }] = (await manager.query('SELECT pg_backend_pid() AS pid')) as { pid: number }[];
        const connection = (manager.queryRunner as unknown as { databaseConnection: PgClient }).databaseConnection;
        const ended = new Promise((resolve) => connection.once('end', resolve));
        const db = await admin();
        try {
          await db.query('SELECT pg_terminate_backend($1)', [pid]);
        } finally {
          await db.end();
        }
        await ended;
        await manager.query('SELECT 1');
      })
      .then(
        () => null,
        (err: Error) => err,
      );
    expect(thrown?.name).toBe('QueryRunnerProviderAlreadyReleasedError');
    expect(isDatabaseUnavailable(thrown)).toBe(true);
    await me().expect(200);
  });

  it('bounds a blocked statement with the statement timeout and exhausting the pool with 503s', async () => {
    const db = await admin();
    try {
      await db.query('BEGIN');
      // The account's row, which GET /api/auth/me reads (not the API key's row: the process remembers the key it verified).
      await db.query('LOCK TABLE accounts IN ACCESS EXCLUSIVE MODE');
      // Every answer comes while the lock is still held: the statement timeout ended the wait, not the ROLLBACK.
      const results = await Promise.all(Array.from({ length: 12 }, () => me()));
      expect(results.map((r) => r.status).every((s) => s === 503)).toBe(true);
    } finally {
      await db.query('ROLLBACK').catch(() => undefined);
      await db.end();
    }
    await me().expect(200);
  });
});

describe('A request that finds every database connection held', () => {
  let t: TestApp;
  let account: TestAccount;
  const captured = capturedLog('info');
  beforeAll(async () => {
    t = await startTestApp({ DATABASE_URL: FAULTS_URL, DB_POOL_SIZE: '2' }, captured.logging);
    account = await createAccount(t);
  });
  afterAll(() => t.close());

  it('answers 503 once its wait for one runs out, and the log names who holds them and what they last ran', async () => {
    // Both of the pool's connections, each in a transaction that waits on nothing the server sees.
    const holders = [t.db.createQueryRunner(), t.db.createQueryRunner()];
    try {
      for (const [n, holder] of holders.entries()) {
        await holder.connect();
        await holder.startTransaction();
        await holder.query(`SELECT ${n + 1} AS held_by_the_test`);
      }
      const res = await request(t.http).get('/api/services').set('Authorization', account.keyBearer).expect(503);
      expect(res.body.code).toBe('unavailable');
      const warning = captured.lines.find((line) => line.includes(`Database unavailable for request ${res.body.requestId}:`));
      expect(warning).toMatch(
        /2 of 2 connections in use, \d+ waiting; held longest: \d+ ms, idle after \\"SELECT 1 AS held_by_the_test\\"; \d+ ms, idle after \\"SELECT 2 AS held_by_the_test\\"/,
      );
    } finally {
      for (const holder of holders) {
        await holder.rollbackTransaction().catch(() => undefined);
        await holder.release();
      }
    }
    await request(t.http).get('/api/services').set('Authorization', account.keyBearer).expect(200);
  });
});
