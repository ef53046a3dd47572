import PgBoss from 'pg-boss';
import { JobHandler, PeriodicOptions } from './job-queue';

export interface Registered {
  handler: JobHandler<object>;
  concurrency: number;
  /** Periodic jobs: their period and options. */
  every?: { seconds: number } & PeriodicOptions;
}

/** What a job name's loop needs of the queue that runs it. */
export interface JobLoopHost {
  readonly stopping: boolean;
  /** Counts a pg-boss statement until it is answered (a shutdown waits for them). */
  counted<T>(statement: Promise<T>): Promise<T>;
  /** Counts a handler's run until it ends (a shutdown waits for them). */
  track(work: Promise<void>): Promise<void>;
  complete(name: string, id: string): Promise<void>;
  /** Registers (or, with null, forgets) how to wake the loop of `name`. */
  setWaker(name: string, wake: (() => void) | null): void;
  wake(name: string): void;
  warn(message: string): void;
  error(message: string): void;
}

/**
 * Keeps up to `concurrency` jobs of `name` running until the stop: fetches again as soon as one
 * ends or the loop is woken, and otherwise waits `pollMs`.
 */
export async function runJobLoop(host: JobLoopHost, boss: PgBoss, name: string, registered: Registered, pollMs: number): Promise<void> {
  const { handler, concurrency } = registered;
  let running = 0;
  let woken = false;
  let wakeUp: () => void = () => undefined;
  host.setWaker(name, () => {
    woken = true;
    wakeUp();
  });
  while (!host.stopping) {
    woken = false;
    let fetched = 0;
    if (running < concurrency) {
      const jobs = await host.counted(boss.fetch<object>(name, { batchSize: concurrency - running })).catch((err: Error) => {
        host.warn(`Jobs ${name} not fetched: ${err.message}`);
        return [];
      });
      fetched = jobs.length;
      for (const job of jobs) {
        running++;
        void host.track(handle(host, boss, name, handler, job)).finally(() => {
          running--;
          host.wake(name);
        });
      }
    }
    if (host.stopping || woken || (fetched > 0 && running < concurrency)) continue;
    // Idle (nothing fetched) or full: wait for a wake-up (a job sent here, one ended, the stop) or the poll.
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, fetched === 0 ? pollMs : 2 ** 31 - 1);
      wakeUp = () => {
        clearTimeout(timer);
        resolve();
      };
    });
    wakeUp = () => undefined;
  }
  host.setWaker(name, null);
}

/**
 * Records each job's outcome, awaited (pg-boss's own `work` records it without awaiting, so a
 * shutdown could close the pool first and leave the job active until it expires). A job fetched
 * after the stop began is failed back unhandled, to be retried by the next process.
 */
async function handle(host: JobLoopHost, boss: PgBoss, name: string, handler: JobHandler<object>, job: PgBoss.Job<object>): Promise<void> {
  try {
    if (host.stopping) throw new Error('The job queue is stopping; the job will be retried');
    await handler(job.data);
    await host.complete(name, job.id);
  } catch (err) {
    await host
      .counted(boss.fail(name, job.id, { message: (err as Error).message }))
      .catch((failErr: Error) => host.error(`Job ${name} ${job.id}: ${failErr.message}`));
  }
}
