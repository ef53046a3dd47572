import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { JobQueue } from '@app/core';
import { startTestModule, TestModule } from '../support/test-module';
import { TEST_DATABASE_URL } from '../support/test-env';
import { waitFor } from '../support/wait-for';

const onPostgres = Boolean(TEST_DATABASE_URL);

/** The pg-boss JobQueue on the real database: how its loops fetch, and what a stop leaves behind. */
describe('JobQueue (pg-boss, TestingModule on the real database)', () => {
  const opened: TestModule[] = [];
  afterAll(async () => {
    for (const m of opened) await m.close().catch(() => undefined);
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
      expect(await states()).toEqual([{ state: 'completed', n: JOBS }]);
    },
  );
});
