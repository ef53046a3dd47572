import type { EntityManager } from 'typeorm';

export interface JobOptions {
  /** Attempts after the first one. */
  retryLimit?: number;
  /** Delay before the first retry; with `retryBackoff` it doubles each time (with jitter). */
  retryDelaySeconds?: number;
  retryBackoff?: boolean;
  /** Not before this many seconds from now. */
  startAfterSeconds?: number;
  /** A job still active this long after it started is taken as lost (its process died) and retried (default 15 min). */
  expireInSeconds?: number;
  /**
   * Jobs of one name and one key are interchangeable: while one waits, due now and not yet fetched,
   * it stands for this one and none is added. The waiting job stays locked until the sending
   * transaction ends, so it runs after what that transaction wrote is visible.
   */
  coalesceKey?: string;
}

export interface WorkOptions {
  /** Jobs of this name handled at once in this process (default 1). */
  concurrency?: number;
}

export interface PeriodicOptions {
  /** Also queue one run when the workers start (work a previous process may have left), outside the periods. */
  atStart?: boolean;
}

/** What a periodic job's handler is told about its run. */
export interface PeriodicRun {
  /** The run queued by a process's start (`atStart`), not a period's. */
  atStart: boolean;
}

export type JobHandler<T> = (data: T) => Promise<void>;

/**
 * Durable background work in the application database: a job sent inside a transaction exists
 * only if that transaction commits, survives restarts, and is retried when its handler throws.
 * Periodic jobs (`every`) run once per period across all replicas. Only processes that start the
 * workers (the API server) run handlers; operator commands only send.
 */
export abstract class JobQueue {
  /** Queues a job; with `manager`, as part of that transaction, and this process's workers of `name` look for it once it commits. */
  abstract send<T extends object>(name: string, data: T, options?: JobOptions, manager?: EntityManager): Promise<void>;
  /** Registers the handler of a job name; handlers run once workers are started. */
  abstract work<T extends object>(name: string, handler: JobHandler<T>, options?: WorkOptions): void;
  /**
   * Registers a periodic job: once every `seconds` (counted in the database's clock, so replicas
   * agree) one run across all replicas, never two at once; a run cut short by a shutdown or a
   * crash is run again by another process.
   */
  abstract every(name: string, seconds: number, handler: (run: PeriodicRun) => Promise<void>, options?: PeriodicOptions): void;
  /**
   * Asks this process's idle workers of `name` to look for jobs now instead of at their next poll.
   * A send does it itself (at its transaction's commit, or at once outside one), so areas need not.
   */
  abstract wake(name: string): void;
  /** Starts polling for the registered jobs (the API server does; operator commands do not). */
  abstract startWorkers(): Promise<void>;
  /** True once shutdown has begun: a handler that loops should end after its current step. */
  abstract get stopping(): boolean;
  /** Waits `ms`, or less once shutdown begins (a handler's wait between polls). */
  abstract delay(ms: number): Promise<void>;
}
