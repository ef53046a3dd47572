import { Pool, PoolClient } from 'pg';
import { poolPressure, trackStatements, unwatchPool, watchPool } from '@app/core';
import { TEST_DATABASE_URL } from '../support/test-env';

/**
 * What the API logs when a request's wait for a database connection runs out (a 503): the pool's
 * counts and who holds its connections, with what each runs or ran last. A pg pool of PostgreSQL;
 * the embedded PGlite has one connection and no pool to wait on, so its pass skips this file.
 */
(TEST_DATABASE_URL ? describe : describe.skip)('the pool watch (PostgreSQL)', () => {
  let pool: Pool;
  const held: PoolClient[] = [];

  beforeEach(() => {
    pool = new Pool({ connectionString: TEST_DATABASE_URL, max: 2, connectionTimeoutMillis: 300, onConnect: trackStatements });
    watchPool(pool);
  });
  afterEach(async () => {
    for (const client of held.splice(0)) client.release();
    unwatchPool(pool);
    await pool.end();
  });

  const checkOut = async () => {
    const client = await pool.connect();
    held.push(client);
    return client;
  };

  it('names the connections held while a wait runs out: one idle in its transaction after its last statement, one running', async () => {
    const idle = await checkOut();
    await idle.query('BEGIN');
    await idle.query('SELECT 1 AS held_by_the_test');
    const busy = await checkOut();
    const sleeping = busy.query('SELECT pg_sleep(2) AS still_running');

    await expect(pool.connect()).rejects.toThrow('timeout exceeded when trying to connect');
    const pressure = poolPressure();
    expect(pressure).toMatch(
      /^2 of 2 connections in use, 0 waiting; held longest: \d+ ms, idle after "SELECT 1 AS held_by_the_test"; \d+ ms, running "SELECT pg_sleep\(2\) AS still_running"$/,
    );
    await sleeping;
    await idle.query('ROLLBACK');
  });

  it('says nothing is held once every connection is back, and forgets a pool it no longer watches', async () => {
    const client = await checkOut();
    await client.query('SELECT 2');
    held.pop()!.release();
    expect(poolPressure()).toBe('0 of 1 connections in use, 0 waiting');
    unwatchPool(pool);
    expect(poolPressure()).toBe('');
  });
});
