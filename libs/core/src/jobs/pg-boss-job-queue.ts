import { BeforeApplicationShutdown, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import PgBoss from 'pg-boss';
import { DataSource, EntityManager, QueryRunner } from 'typeorm';
import { AppConfig } from '../config/app-config';
import { PgListener } from '../database/pg-listener';
import { driverMaster, sqlRows } from '../database/statement';
import { GroupedCompletions } from './grouped-completions';
import { JobLoopHost, Registered, runJobLoop } from './job-loop';
import { JobHandler, JobOptions, JobQueue, PeriodicOptions, PeriodicRun, WorkOptions } from './job-queue';

interface Pool {
  query(text: string, values?: unknown[]): Promise<{ rows: unknown[] }>;
}

/** Names of the jobs a transaction sent, kept on its query runner until it commits. */
const SENT = Symbol('jobs sent');

/** Names a transaction has NOTIFY'd already: one notice per name is enough at its commit. */
const ANNOUNCED = Symbol('jobs announced');

function namesOf(queryRunner: QueryRunner, key: symbol): Set<string> {
  const data = queryRunner.data as Record<symbol, Set<string> | undefined>;
  return (data[key] ??= new Set());
}

function wakeAfterCommit(queryRunner: QueryRunner): Set<string> {
  return namesOf(queryRunner, SENT);
}

/** At the outermost commit or rollback: the query runner may serve another transaction next. */
function forgetSent(queryRunner: QueryRunner): void {
  const data = queryRunner.data as Record<symbol, unknown>;
  delete data[SENT];
  delete data[ANNOUNCED];
}

/** Where a sent job's name is NOTIFY'd, at its transaction's commit, for every replica's idle workers. */
export const JOB_WAKE_CHANNEL = 'job_wake';

/** How long a shutdown waits for handlers under way (they see `stopping` and end their step). */
const SHUTDOWN_WAIT_MS = 5000;

/**
 * pg-boss 10 (the last major that runs on Node 20) in the application database, schema `pgboss`.
 * It reaches the database through the app's own pool (pg.Pool, or the PGlite look-alike whose
 * single session it must share), and a job sent with a manager is inserted by that transaction.
 *
 * The fetch loops are ours (pg-boss's `work` awaits each batch before fetching again, so one
 * long job would hold back the others): one loop per job name keeps up to `concurrency` jobs
 * running, fetches again as soon as one ends or `wake` is called, and otherwise waits
 * JOBS_POLL_INTERVAL_MS (a periodic job's loop: its period). On PostgreSQL a send also NOTIFYs the
 * job's name (once per transaction and name, delivered at the commit, dropped by a rollback), and
 * every replica with workers LISTENs: a job made by one replica is looked for by all of them at once,
 * not at their next poll. Periodic jobs are sent by every
 * replica's timer into one pg-boss singleton slot per period (the database's clock decides the
 * slot; a second send is dropped), on a `stately` queue (one waiting and one active at most); see
 * docs/decisions/jobs.md, "Periodic jobs".
 */
@Injectable()
export class PgBossJobQueue extends JobQueue implements OnApplicationBootstrap, BeforeApplicationShutdown, JobLoopHost {
  private readonly logger = new Logger('Jobs');
  private readonly handlers = new Map<string, Registered>();
  /** Queues made (or being made) outside a transaction; concurrent first sends share one creation. */
  private readonly queues = new Map<string, Promise<void>>();
  private readonly inFlight = new Set<Promise<void>>();
  private readonly loops = new Set<Promise<void>>();
  private readonly wakers = new Map<string, () => void>();
  private readonly timers: NodeJS.Timeout[] = [];
  private readonly stop = new AbortController();
  /** Statements pg-boss has issued through our pool and not yet seen answered. */
  private statementsInFlight = 0;
  private boss?: Promise<PgBoss>;
  private listener: PgListener | null = null;
  /** Jobs that end together are completed by one statement. */
  private readonly completions = new GroupedCompletions((name, ids) => this.completeJobs(name, ids));

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
    this.dataSource.subscribers.push({
      afterTransactionCommit: ({ queryRunner }) => this.wakeSentIn(queryRunner),
      afterTransactionRollback: ({ queryRunner }) => {
        if (!queryRunner.isTransactionActive) forgetSent(queryRunner);
      },
    });
    const boss = await this.started();
    for (const name of this.handlers.keys()) await this.ensureQueue(boss, name);
  }

  async send<T extends object>(name: string, data: T, options: JobOptions = {}, manager?: EntityManager): Promise<void> {
    const boss = await this.started();
    const db = manager
      ? {
          executeSql: async (text: string, values: unknown[]) => ({ rows: await sqlRows(manager, text, values) }),
        }
      : undefined;
    await this.ensureQueue(boss, name, db);
    const inTransaction = manager?.queryRunner?.isTransactionActive ? manager.queryRunner : null;
    if (inTransaction) wakeAfterCommit(inTransaction).add(name);
    if (options.coalesceKey && (await this.waiting(name, options.coalesceKey, manager))) return;
    // pg-boss refuses a retry key that is present but undefined, so only the given ones are passed.
    await boss.send(name, data, {
      ...(options.retryLimit !== undefined ? { retryLimit: options.retryLimit } : {}),
      ...(options.retryDelaySeconds !== undefined ? { retryDelay: options.retryDelaySeconds } : {}),
      ...(options.retryBackoff !== undefined ? { retryBackoff: options.retryBackoff } : {}),
      ...(options.startAfterSeconds ? { startAfter: Math.ceil(options.startAfterSeconds) } : {}),
      ...(options.expireInSeconds ? { expireInSeconds: Math.ceil(options.expireInSeconds) } : {}),
      ...(options.coalesceKey ? { singletonKey: options.coalesceKey } : {}),
      ...(db ? { db } : {}),
    });
    if (!inTransaction) this.wake(name);
    await this.announce(name, manager, inTransaction);
  }

  /** After the insert: outside a transaction the notice goes at once, and a replica must find the job. */
  private async announce(name: string, manager: EntityManager | undefined, inTransaction: QueryRunner | null): Promise<void> {
    if (!this.config.databaseUrl) return; // the embedded database has one process
    if (inTransaction) {
      const announced = namesOf(inTransaction, ANNOUNCED);
      if (announced.has(name)) return;
      announced.add(name);
    }
    const notice = sqlRows(manager ?? this.dataSource.manager, 'SELECT pg_notify($1, $2)', [JOB_WAKE_CHANNEL, name]);
    // Outside a transaction the job is in already: a lost notice is found at the next poll, and the
    // send must not look failed (its caller could send it twice).
    await (inTransaction ? notice : notice.catch((err: Error) => this.logger.warn(`Job ${name} queued, its notice lost: ${err.message}`)));
  }

  /**
   * A job of `name` and `key` waiting and due, locked for the caller's transaction (a fetch skips
   * it until then). `singleton_key` carries the key: on a standard queue pg-boss makes nothing
   * unique of it without `singletonSeconds`.
   */
  private async waiting(name: string, key: string, manager?: EntityManager): Promise<boolean> {
    const rows = await sqlRows(
      manager ?? this.dataSource.manager,
      `SELECT id FROM pgboss.job
        WHERE name = $1 AND singleton_key = $2 AND state = 'created' AND start_after <= now()
        LIMIT 1 FOR UPDATE SKIP LOCKED`,
      [name, key],
    );
    return rows.length > 0;
  }

  /** The outermost commit of a transaction that sent jobs: this process's idle workers of those names look now. */
  private wakeSentIn(queryRunner: QueryRunner): void {
    const names = (queryRunner.data as Record<symbol, Set<string> | undefined>)[SENT];
    if (!names || queryRunner.isTransactionActive) return;
    forgetSent(queryRunner);
    for (const name of names) this.wake(name);
  }

  work<T extends object>(name: string, handler: JobHandler<T>, options: WorkOptions = {}): void {
    this.handlers.set(name, { handler: handler as JobHandler<object>, concurrency: options.concurrency ?? 1 });
  }

  every(name: string, seconds: number, handler: (run: PeriodicRun) => Promise<void>, options: PeriodicOptions = {}): void {
    const run = (data: Partial<PeriodicRun>) => handler({ atStart: data.atStart === true });
    this.handlers.set(name, { handler: run, concurrency: 1, every: { seconds, ...options } });
  }

  wake(name: string): void {
    this.wakers.get(name)?.();
  }

  get stopping(): boolean {
    return this.stop.signal.aborted;
  }

  delay(ms: number): Promise<void> {
    if (this.stopping) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.stop.signal.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.stop.signal.addEventListener('abort', done, { once: true });
    });
  }

  async startWorkers(): Promise<void> {
    const boss = await this.started();
    if (this.config.databaseUrl && !this.listener) {
      // Each name sent by any replica wakes this process's loop of it; after an outage, every loop looks.
      this.listener = new PgListener(
        this.config.databaseUrl,
        JOB_WAKE_CHANNEL,
        { message: (name) => this.wake(name), resumed: () => this.wakers.forEach((wake) => wake()) },
        'Jobs',
      );
      await this.listener.start();
    }
    for (const [name, registered] of this.handlers) {
      await this.ensureQueue(boss, name);
      // A periodic job's loop is woken by its timer each period: it need not poll more often.
      const pollMs = Math.max(this.config.jobs.pollIntervalMs, (registered.every?.seconds ?? 0) * 1000);
      const loop = runJobLoop(this, boss, name, registered, pollMs).catch((err: Error) =>
        this.logger.error(`Job loop ${name} ended: ${err.message}`),
      );
      this.loops.add(loop);
      if (registered.every) await this.schedule(name, registered.every);
    }
  }

  /**
   * Stops the timers and loops, then waits (5 s at most) until no handler runs and no statement of
   * pg-boss's is unanswered: a fetch under way when the stop began, or an outcome being recorded,
   * must not reach the pool after it closes. A handler cut short throws, and its job is failed back
   * to the queue to be retried by the next process.
   */
  async beforeApplicationShutdown(): Promise<void> {
    this.stop.abort();
    await this.listener?.stop();
    for (const timer of this.timers) clearInterval(timer);
    for (const wake of this.wakers.values()) wake();
    if (!this.boss) return;
    const boss = await this.boss;
    const deadline = Date.now() + SHUTDOWN_WAIT_MS;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.allSettled([...this.loops, ...this.inFlight]),
      new Promise((resolve) => (timer = setTimeout(resolve, SHUTDOWN_WAIT_MS))),
    ]);
    clearTimeout(timer);
    for (let quiet = 0; quiet < 2 && Date.now() < deadline;) {
      quiet = this.inFlight.size === 0 && this.statementsInFlight === 0 ? quiet + 1 : 0;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    await boss.stop({ graceful: true, wait: true, timeout: 1000 }).catch(() => undefined);
  }

  setWaker(name: string, wake: (() => void) | null): void {
    if (wake) this.wakers.set(name, wake);
    else this.wakers.delete(name);
  }

  complete(name: string, id: string): Promise<void> {
    return this.completions.complete(name, id);
  }

  warn(message: string): void {
    this.logger.warn(message);
  }

  error(message: string): void {
    this.logger.error(message);
  }

  /**
   * Every replica sends each period's job into the same singleton slot (pg-boss computes the slot
   * from the database's `now()`; the unique index drops the second send), so one run per period
   * across replicas. A run cut short is retried once; a run whose process died is taken as lost
   * after four periods (2 to 15 minutes), and the next period's run waits until then.
   */
  private async schedule(name: string, { seconds, atStart }: { seconds: number } & PeriodicOptions): Promise<void> {
    const boss = await this.started();
    const expireInSeconds = Math.min(900, Math.max(120, 4 * seconds));
    const send = async (atStart: boolean) => {
      try {
        const slot = atStart ? {} : { singletonSeconds: seconds };
        const options = { retryLimit: 1, retryDelay: 1, expireInSeconds, singletonKey: name, ...slot };
        await this.counted(boss.send(name, { atStart }, options));
        // Also when another replica's send took the slot: its job may be ours to run.
        this.wake(name);
      } catch (err) {
        if (!this.stopping) this.logger.warn(`Periodic job ${name} not queued: ${(err as Error).message}`);
      }
    };
    if (atStart) await send(true);
    const timer = setInterval(() => void this.track(send(false)), seconds * 1000);
    timer.unref();
    this.timers.push(timer);
  }

  private async completeJobs(name: string, ids: string[]): Promise<void> {
    if (!this.boss) throw new Error('The job queue was not started');
    const boss = await this.boss;
    await this.counted(boss.complete(name, ids));
  }

  counted<T>(statement: Promise<T>): Promise<T> {
    this.statementsInFlight++;
    return statement.finally(() => this.statementsInFlight--);
  }

  track(work: Promise<void>): Promise<void> {
    this.inFlight.add(work);
    return work.finally(() => this.inFlight.delete(work));
  }

  private started(): Promise<PgBoss> {
    if (this.stopping) return Promise.reject(new Error('The job queue is stopped'));
    this.boss ??= this.start();
    return this.boss;
  }

  private async start(): Promise<PgBoss> {
    const pool = driverMaster<Pool>(this.dataSource)!;
    const boss = new PgBoss({
      // eslint-disable-next-line no-restricted-syntax -- pg-boss's own statements on the driver's pool: pg's answer, not TypeORM's
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
    // A periodic job's queue holds at most one waiting and one active job: a run longer than its
    // period delays the next, and the periods it overran are not queued up behind it.
    const policy = this.handlers.get(name)?.every ? 'stately' : 'standard';
    // pg-boss creates queues on its own connection; inside a transaction, the same function on it.
    // Remembered only when made outside a transaction, which cannot roll back under us.
    if (db) return void (await db.executeSql('SELECT pgboss.create_queue($1, $2::json)', [name, JSON.stringify({ policy })]));
    // Two creations of one new queue at once deadlock in PostgreSQL (pg-boss makes a partition).
    const making = boss.createQueue(name, { name, policy }).catch((err: unknown) => {
      this.queues.delete(name);
      throw err;
    });
    this.queues.set(name, making);
    return making;
  }
}
