import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { PgListener } from '@app/core/database/pg-listener';
import { TEST_DATABASE_URL } from '../support/test-env';
import { waitFor } from '../support/wait-for';

const onPostgres = Boolean(TEST_DATABASE_URL);

/** The LISTEN connection on the real PostgreSQL: what its owner hears when it could not listen at once. */
(onPostgres ? describe : describe.skip)('PgListener (real PostgreSQL)', () => {
  const admin = () => new Client({ connectionString: TEST_DATABASE_URL });

  it('a start whose first tries fail reports the later LISTEN as resumed (what was sent meanwhile was missed), then hears notices', async () => {
    const name = `listen_late_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
    const url = new URL(TEST_DATABASE_URL!);
    url.pathname = `/${name}`;
    const messages: string[] = [];
    let resumed = 0;
    const listener = new PgListener(url.toString(), 'late_channel', { message: (p) => messages.push(p), resumed: () => resumed++ });
    const db = admin();
    await db.connect();
    try {
      // The database does not exist yet: the first connection fails and start() returns, not listening.
      await listener.start();
      expect(listener.connected).toBe(false);
      await db.query(`CREATE DATABASE ${name}`);
      expect(
        await waitFor(
          async () => resumed,
          (n) => n === 1,
          20_000,
        ),
      ).toBe(1);
      expect(listener.connected).toBe(true);

      const sender = new Client({ connectionString: url.toString() });
      await sender.connect();
      await sender.query(`SELECT pg_notify('late_channel', 'hello')`);
      await sender.end();
      expect(
        await waitFor(
          async () => messages,
          (m) => m.length === 1,
          10_000,
        ),
      ).toEqual(['hello']);
    } finally {
      await listener.stop();
      await db.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await db.end();
    }
  });

  it('a start that listens at once reports no resume', async () => {
    let resumed = 0;
    const listener = new PgListener(TEST_DATABASE_URL!, 'prompt_channel', { message: () => undefined, resumed: () => resumed++ });
    try {
      await listener.start();
      expect(listener.connected).toBe(true);
      await listener.roundTrip();
      expect(resumed).toBe(0);
    } finally {
      await listener.stop();
    }
  });
});
