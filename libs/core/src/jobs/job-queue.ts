import type { EntityManager } from 'typeorm';

export interface JobOptions {
  /** Attempts after the first one. */
  retryLimit?: number;
  /** Delay before the first retry; with `retryBackoff` it doubles each time (with jitter). */
  retryDelaySeconds?: number;
  retryBackoff?: boolean;
  /** Not before this many seconds from now. */
  startAfterSeconds?: number;
}

export interface WorkOptions {
  /** Jobs of this name handled at once in this process (default 1). */
  concurrency?: number;
}

export type JobHandler<T> = (data: T) => Promise<void>;

/**
 * Durable background work in the application database: a job sent inside a transaction exists
 * only if that transaction commits, survives restarts, and is retried when its handler throws.
 */
export abstract class JobQueue {
  /** Queues a job; with `manager`, as part of that transaction. */
  abstract send<T extends object>(name: string, data: T, options?: JobOptions, manager?: EntityManager): Promise<void>;
  /** Registers the handler of a job name; handlers run once workers are started. */
  abstract work<T extends object>(name: string, handler: JobHandler<T>, options?: WorkOptions): void;
  /** Starts polling for the registered jobs (the API server does; operator commands do not). */
  abstract startWorkers(): Promise<void>;
  /** True once shutdown has begun: a handler that loops should end after its current step. */
  abstract get stopping(): boolean;
}
