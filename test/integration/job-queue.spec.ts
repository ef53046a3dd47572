import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { DataSource } from 'typeorm';
import { JobQueue } from '@app/core';
import { freshDataDir } from '../support/test-database';
import { startTestModule, TestModule } from '../support/test-module';
import { TEST_DATABASE_URL } from '../support/test-env';
import { waitFor } from '../support/wait-for';

const onPostgres = Boolean(TEST_DATABASE_URL);

/** The pg-boss JobQueue on the real database: how its loops fetch, and what a stop leaves behind. */
describe('JobQueue (pg-boss, TestingModule on the real database)', () => {
  const opened: TestModule[] = [];
  // Each test's modules close with it: their pools and LISTEN sessions are not held through the file.
  afterEach(async () => {
    for (const m of opened.splice(0)) await m.close().catch(() => undefined);
  });

  /** A module whose queue `name` records each job's `n` in `handled`, taking `ms` per job. */
  async function worker(name: string, handled: number[], options: { ms?: number; concurrency?: number; pollMs?: number } = {}) {
    const m = await startTestModule([], { JOBS_POLL_INTERVAL_MS: String(options.pollMs ?? 60_000) });
    opened.push(m);
    const jobs = m.get(JobQueue);
    jobs.work<{ n: number }>(
      name,
      async ({ n }) => {
        if (options.ms) await new Promise((resolve) => setTimeout(resolve, options.ms));
        handled.push(n);
      },
      { concurrency: options.concurrency ?? 1 },
    );
    return { m, jobs };
  }

  const send = (jobs: JobQueue, name: string, count: number) =>
    Promise.all(Array.from({ length: count }, (_, n) => jobs.send(name, { n }, { retryLimit: 3 })));

  it('handles queued jobs one after another without waiting the polling interval between them', async () => {
    const name = `test-burst-${randomUUID()}`;
    const handled: number[] = [];
    const { jobs } = await worker(name, handled, { pollMs: 60_000 });
    await send(jobs, name, 8);
    await jobs.startWorkers();
    // One loop, a 60 s polling interval: only a loop that fetches again after each job gets through
    // eight of them before its first wait ends.
    await waitFor(
      async () => handled.length,
      (n) => n >= 8,
      20_000,
    );
    expect([...handled].sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
  });

  (onPostgres ? it : it.skip)(
    'a stop while jobs are being fetched and handled leaves none active and handles none afterwards; the next process does the rest',
    async () => {
      const name = `test-stop-${randomUUID()}`;
      const JOBS = 150;
      const first: number[] = [];
      // Instant handlers and four loops: most of the time some loop is fetching, so the stop
      // usually lands while a fetch is under way.
      const a = await worker(name, first, { concurrency: 4, pollMs: 500 });
      await send(a.jobs, name, JOBS);
      await a.jobs.startWorkers();
      await waitFor(
        async () => first.length,
        (n) => n >= 20,
        20_000,
      );
      await a.m.close();
      opened.splice(opened.indexOf(a.m), 1);
      const handledByTheStopped = first.length;
      const second: number[] = [];
      const b = await worker(name, second, { concurrency: 4, pollMs: 500 });
      const db = b.m.get(DataSource);
      const states = async () =>
        (await db.query(`SELECT state, count(*)::int AS n FROM pgboss.job WHERE name = $1 GROUP BY state ORDER BY state`, [name])) as {
          state: string;
          n: number;
        }[];
      expect((await states()).filter((s) => s.state === 'active')).toEqual([]);

      await b.jobs.startWorkers();
      await waitFor(
        async () => new Set([...first, ...second]).size,
        (n) => n === JOBS,
        30_000,
      );
      expect(first.length).toBe(handledByTheStopped);
      expect(new Set([...first, ...second]).size).toBe(JOBS);
      // A handler has run before its job is recorded completed: the last outcome may still be on its way.
      expect(await waitFor(states, (rows) => rows.length === 1, 5_000)).toEqual([{ state: 'completed', n: JOBS }]);
    },
  );

  it('handles a job sent in a transaction as soon as it commits, without waiting for the next poll', async () => {
    const name = `test-commit-wake-${randomUUID()}`;
    const handled: number[] = [];
    const { m, jobs } = await worker(name, handled, { pollMs: 60_000 });
    await jobs.startWorkers();
    // The loop has looked once and found nothing: it sleeps for the 60 s poll unless woken.
    await new Promise((resolve) => setTimeout(resolve, 500));
    await m.get(DataSource).transaction(async (manager) => {
      await manager.query('SAVEPOINT inner_work');
      await manager.query('RELEASE SAVEPOINT inner_work');
      await jobs.send(name, { n: 1 }, {}, manager);
    });
    const seen = await waitFor(
      async () => handled,
      (h) => h.length === 1,
      20_000,
    );
    expect(seen).toEqual([1]);
  });

  (onPostgres ? it : it.skip)(
    "a job another process sends wakes this one's idle workers when it commits (NOTIFY), and a rolled-back one does not",
    async () => {
      const name = `test-replica-wake-${randomUUID()}`;
      const handled: number[] = [];
      const { jobs } = await worker(name, handled, { pollMs: 60_000 });
      await jobs.startWorkers();
      // Another replica: it sends, it has no worker of the name.
      const other = await startTestModule([], { JOBS_POLL_INTERVAL_MS: '60000' });
      opened.push(other);
      const sender = other.get(JobQueue);
      const db = other.get(DataSource);
      // The loop has looked once and found nothing: it sleeps for the 60 s poll unless woken.
      await new Promise((resolve) => setTimeout(resolve, 500));
      await db
        .transaction(async (manager) => {
          await sender.send(name, { n: 0 }, {}, manager);
          throw new Error('rolled back');
        })
        .catch(() => undefined);
      await db.transaction(async (manager) => {
        await sender.send(name, { n: 1 }, {}, manager);
        await sender.send(name, { n: 2 }, {}, manager);
      });
      await sender.send(name, { n: 3 });
      const seen = await waitFor(
        async () => handled,
        (h) => h.length >= 3,
        30_000,
      );
      expect([...seen].sort()).toEqual([1, 2, 3]);
      const rows = (await db.query(`SELECT count(*)::int AS n FROM pgboss.job WHERE name = $1`, [name])) as { n: number }[];
      expect(rows[0].n).toBe(3);
    },
  );

  describe('coalesced jobs (coalesceKey)', () => {
    const jobsOf = async (db: DataSource, name: string) =>
      (await db.query(`SELECT singleton_key AS key, state FROM pgboss.job WHERE name = $1 ORDER BY created_on`, [name])) as {
        key: string;
        state: string;
      }[];

    it('adds no job while one of the same key waits, and a new one once it was handled', async () => {
      const name = `test-coalesce-${randomUUID()}`;
      const handled: number[] = [];
      const { m, jobs } = await worker(name, handled);
      const db = m.get(DataSource);
      for (const n of [1, 2, 3]) await jobs.send(name, { n }, { coalesceKey: 'a' });
      await jobs.send(name, { n: 4 }, { coalesceKey: 'b' });
      // A job due later does not stand for one due now.
      await jobs.send(name, { n: 5 }, { coalesceKey: 'c', startAfterSeconds: 3600 });
      await jobs.send(name, { n: 6 }, { coalesceKey: 'c' });
      expect(await jobsOf(db, name)).toEqual([
        { key: 'a', state: 'created' },
        { key: 'b', state: 'created' },
        { key: 'c', state: 'created' },
        { key: 'c', state: 'created' },
      ]);
      await jobs.startWorkers();
      await waitFor(
        async () => handled.length,
        (n) => n >= 3,
        20_000,
      );
      expect([...handled].sort()).toEqual([1, 4, 6]);
      await jobs.send(name, { n: 7 }, { coalesceKey: 'a' });
      jobs.wake(name);
      await waitFor(
        async () => handled.length,
        (n) => n >= 4,
        20_000,
      );
      expect(handled[3]).toBe(7);
    });

    (onPostgres ? it : it.skip)('keeps the waiting job from being fetched until the coalescing transaction commits', async () => {
      const name = `test-coalesce-lock-${randomUUID()}`;
      const handled: number[] = [];
      const { m, jobs } = await worker(name, handled);
      const db = m.get(DataSource);
      await jobs.send(name, { n: 1 }, { coalesceKey: 'a' });
      const runner = db.createQueryRunner();
      await runner.startTransaction();
      try {
        await jobs.send(name, { n: 2 }, { coalesceKey: 'a' }, runner.manager);
        // What pg-boss's fetch does: it skips locked rows, so the job waits for the transaction's work.
        const free = await db.query(`SELECT id FROM pgboss.job WHERE name = $1 AND state = 'created' FOR UPDATE SKIP LOCKED`, [name]);
        expect(free).toEqual([]);
        await runner.commitTransaction();
      } finally {
        await runner.release();
      }
      expect(await jobsOf(db, name)).toEqual([{ key: 'a', state: 'created' }]);
      await jobs.startWorkers();
      await waitFor(
        async () => handled,
        (h) => h.length === 1,
        20_000,
      );
    });
  });

  describe('periodic jobs (every)', () => {
    /** A module running the periodic job `name` every second; `run` is its handler. */
    async function periodic(name: string, run: (jobs: JobQueue) => Promise<void>, env: Record<string, string> = {}) {
      const m = await startTestModule([], { JOBS_POLL_INTERVAL_MS: '500', ...env });
      opened.push(m);
      const jobs = m.get(JobQueue);
      jobs.every(name, 1, () => run(jobs));
      await jobs.startWorkers();
      return { m, jobs, db: m.get(DataSource) };
    }
    const close = async (m: TestModule) => {
      opened.splice(opened.indexOf(m), 1);
      await m.close();
    };

    it('runs once a period without being sent, never two runs at once, and does not queue up the periods a long run overran', async () => {
      const name = `test-every-${randomUUID()}`;
      let running = 0;
      let most = 0;
      let runs = 0;
      const { m, db } = await periodic(name, async () => {
        most = Math.max(most, ++running);
        // Longer than the period: the next runs wait, and only one of them is kept waiting.
        await new Promise((resolve) => setTimeout(resolve, 2500));
        running--;
        runs++;
      });
      await waitFor(
        async () => runs,
        (n) => n >= 2,
        20_000,
      );
      const waiting = await db.query(`SELECT count(*)::int AS n FROM pgboss.job WHERE name = $1 AND state = 'created'`, [name]);
      expect(waiting[0].n).toBeLessThanOrEqual(1);
      expect(most).toBe(1);
      await close(m);
    });

    (onPostgres ? it : it.skip)('runs once per period across two app instances', async () => {
      const name = `test-every-${randomUUID()}`;
      const handled: string[] = [];
      const a = await periodic(name, async () => void handled.push('a'));
      const b = await periodic(name, async () => void handled.push('b'));
      const started = Date.now();
      await waitFor(
        async () => handled.length,
        (n) => n >= 6,
        20_000,
      );
      const slots = await a.db.query(
        `SELECT count(*)::int AS jobs, count(DISTINCT singleton_on)::int AS slots FROM pgboss.job WHERE name = $1 AND singleton_on IS NOT NULL`,
        [name],
      );
      await close(a.m);
      await close(b.m);
      const periods = Math.ceil((Date.now() - started) / 1000);
      // Each instance sends every period: without the shared slot there would be about two runs a period.
      expect(handled.length).toBeLessThanOrEqual(periods + 1);
      expect(slots[0].jobs).toBe(slots[0].slots);
    });

    it('a run cut short by a shutdown is run again by the next process', async () => {
      const name = `test-every-${randomUUID()}`;
      const dataDir = freshDataDir('job-queue-restart-');
      try {
        // The first process's run waits until its shutdown and ends unfinished.
        const first = await periodic(
          name,
          async (jobs) => {
            await jobs.delay(120_000);
            if (jobs.stopping) throw new Error('cut short');
          },
          { DATA_DIR: dataDir },
        );
        const [cut] = await waitFor(
          () => first.db.query(`SELECT id FROM pgboss.job WHERE name = $1 AND state = 'active'`, [name]) as Promise<{ id: string }[]>,
          (rows) => rows.length > 0,
          20_000,
        );
        await close(first.m);
        let runs = 0;
        const next = await periodic(name, async () => void runs++, { DATA_DIR: dataDir });
        const job = await waitFor(
          async () => (await next.db.query(`SELECT state, retry_count FROM pgboss.job WHERE id = $1`, [cut.id]))[0],
          (row) => row.state === 'completed',
          20_000,
        );
        expect(job.retry_count).toBe(1);
        expect(runs).toBeGreaterThanOrEqual(1);
        await close(next.m);
      } finally {
        rmSync(dataDir, { recursive: true, force: true });
      }
    });
  });
});
