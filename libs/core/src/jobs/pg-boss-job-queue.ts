import { BeforeApplicationShutdown, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import PgBoss from 'pg-boss';
import { DataSource, EntityManager } from 'typeorm';
import { AppConfig } from '../config/app-config';
import { JobHandler, JobOptions, JobQueue, WorkOptions } from './job-queue';

interface Pool {
  query(text: string, values?: unknown[]): Promise<{ rows: unknown[] }>;
}

/**
 * pg-boss 10 (the last major that runs on Node 20) in the application database, schema `pgboss`.
 * It reaches the database through the app's own pool (pg.Pool, or the PGlite look-alike whose
 * single session it must share), and a job sent with a manager is inserted by that transaction.
 */
@Injectable()
export class PgBossJobQueue extends JobQueue implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('Jobs');
  private readonly handlers = new Map<string, { handler: JobHandler<object>; concurrency: number }>();
  /** Queues made (or being made) outside a transaction; concurrent first sends share one creation. */
  private readonly queues = new Map<string, Promise<void>>();
  private readonly inFlight = new Set<Promise<void>>();
  /** Statements pg-boss has issued through our pool and not yet seen answered. */
  private statementsInFlight = 0;
  private boss?: Promise<PgBoss>;
  private stopped = false;

  constructor(
    private readonly dataSource: DataSource,
    private readonly config: AppConfig,
  ) {
    super();
  }

  /**
   * Started at boot, before any request: on the embedded database a start (or a queue created)
   * from inside a transaction would wait for the one connection that transaction holds.
   */
  async onApplicationBootstrap(): Promise<void> {
    const boss = await this.started();
    for (const name of this.handlers.keys()) await this.ensureQueue(boss, name);
  }

  async send<T extends object>(name: string, data: T, options: JobOptions = {}, manager?: EntityManager): Promise<void> {
    const boss = await this.started();
    const db = manager
      ? {
          executeSql: async (text: string, values: unknown[]) => ({ rows: (await manager.queryRunner!.query(text, values, true)).records }),
        }
      : undefined;
    await this.ensureQueue(boss, name, db);
    // pg-boss refuses a retry key that is present but undefined, so only the given ones are passed.
    await boss.send(name, data, {
      ...(options.retryLimit !== undefined ? { retryLimit: options.retryLimit } : {}),
      ...(options.retryDelaySeconds !== undefined ? { retryDelay: options.retryDelaySeconds } : {}),
      ...(options.retryBackoff !== undefined ? { retryBackoff: options.retryBackoff } : {}),
      ...(options.startAfterSeconds ? { startAfter: Math.ceil(options.startAfterSeconds) } : {}),
      ...(db ? { db } : {}),
    });
  }

  work<T extends object>(name: string, handler: JobHandler<T>, options: WorkOptions = {}): void {
    this.handlers.set(name, { handler: handler as JobHandler<object>, concurrency: options.concurrency ?? 1 });
  }

  get stopping(): boolean {
    return this.stopped;
  }

  async startWorkers(): Promise<void> {
    const boss = await this.started();
    const pollingIntervalSeconds = this.config.jobs.pollIntervalMs / 1000;
    for (const [name, { handler, concurrency }] of this.handlers) {
      await this.ensureQueue(boss, name);
      // pg-boss 10 runs one fetch-and-handle loop per work() call: n calls, n jobs at once.
      for (let i = 0; i < concurrency; i++) {
        const worker: { id?: string } = {};
        worker.id = await boss.work<object>(name, { pollingIntervalSeconds, batchSize: 1 }, (jobs) =>
          this.track(this.run(boss, name, handler, jobs, worker)),
        );
      }
    }
  }

  /**
   * Stops the loops, then waits (5 s at most) until no handler runs and no statement of pg-boss's
   * is unanswered: a fetch under way when the stop began, or pg-boss's own completion call after a
   * handler, must not reach the pool after it closes.
   */
  async beforeApplicationShutdown(): Promise<void> {
    this.stopped = true;
    if (!this.boss) return;
    const boss = await this.boss;
    await boss.stop({ graceful: true, wait: true, timeout: 5000 });
    const deadline = Date.now() + 5000;
    for (let quiet = 0; quiet < 2 && Date.now() < deadline;) {
      quiet = this.inFlight.size === 0 && this.statementsInFlight === 0 ? quiet + 1 : 0;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  /**
   * pg-boss 10 records a job's outcome without awaiting it, so a shutdown could close the pool
   * first and leave the job "active" until it expires. The outcome is recorded here, awaited.
   * A loop that handled a job fetches again at once (pg-boss would otherwise wait its polling
   * interval after every job); only an empty fetch waits. A job fetched after the stop began is
   * failed back to the queue unhandled, to be retried by the next process.
   */
  private async run(
    boss: PgBoss,
    name: string,
    handler: JobHandler<object>,
    jobs: PgBoss.Job<object>[],
    worker: { id?: string },
  ): Promise<void> {
    if (this.stopped && jobs.length) throw new Error('The job queue is stopping; the job will be retried');
    for (const job of jobs) {
      try {
        await handler(job.data);
        await boss.complete(name, job.id);
      } catch (err) {
        await boss
          .fail(name, job.id, { message: (err as Error).message })
          .catch((failErr: Error) => this.logger.error(`Job ${name} ${job.id}: ${failErr.message}`));
      }
    }
    if (jobs.length && !this.stopped && worker.id) boss.notifyWorker(worker.id);
  }

  private counted<T>(statement: Promise<T>): Promise<T> {
    this.statementsInFlight++;
    return statement.finally(() => this.statementsInFlight--);
  }

  private track(work: Promise<void>): Promise<void> {
    this.inFlight.add(work);
    return work.finally(() => this.inFlight.delete(work));
  }

  private started(): Promise<PgBoss> {
    if (this.stopped) return Promise.reject(new Error('The job queue is stopped'));
    this.boss ??= this.start();
    return this.boss;
  }

  private async start(): Promise<PgBoss> {
    const pool = (this.dataSource.driver as unknown as { master: Pool }).master;
    const boss = new PgBoss({
      db: { executeSql: (text, values) => this.counted(pool.query(text, values?.length ? values : undefined)) },
      schedule: false,
      supervise: true,
    });
    boss.on('error', (err: Error) => this.logger.error(`Job queue: ${err.message}`));
    await boss.start();
    return boss;
  }

  private async ensureQueue(boss: PgBoss, name: string, db?: PgBoss.Db): Promise<void> {
    const made = this.queues.get(name);
    if (made) return made;
    // pg-boss creates queues on its own connection; inside a transaction, the same function on it.
    // Remembered only when made outside a transaction, which cannot roll back under us.
    if (db) return void (await db.executeSql('SELECT pgboss.create_queue($1, $2::json)', [name, JSON.stringify({ policy: 'standard' })]));
    // Two creations of one new queue at once deadlock in PostgreSQL (pg-boss makes a partition).
    const making = boss.createQueue(name).catch((err: unknown) => {
      this.queues.delete(name);
      throw err;
    });
    this.queues.set(name, making);
    return making;
  }
}
