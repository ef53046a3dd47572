import { setTimeout as sleep } from 'node:timers/promises';
import { DataSource } from 'typeorm';
import { isLockConflict } from '../errors/database-errors';
import { runSql, sqlCount } from './statement';
import { inTransaction } from './transaction-scope';

/** How long a purge's batch waits for a row lock that a request holds. */
const PURGE_LOCK_TIMEOUT = '200ms';
const PURGE_ATTEMPTS = 5;

/**
 * One batch of a background purge: `deleteSql` in a short transaction of its own; returns how many
 * rows went. The counters its triggers decrement are also written by requests: it waits at most
 * PURGE_LOCK_TIMEOUT for one, so in a lock cycle with a request the purge gives way (before
 * PostgreSQL's one-second deadlock check could pick the request), and tries again.
 */
export async function purgeBatchGivingWay(dataSource: DataSource, deleteSql: string, params: unknown[]): Promise<number> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await inTransaction(dataSource, async (manager) => {
        await runSql(manager, `SET LOCAL lock_timeout = '${PURGE_LOCK_TIMEOUT}'`);
        return sqlCount(manager, deleteSql, params);
      });
    } catch (err) {
      if (attempt >= PURGE_ATTEMPTS || !isLockConflict(err)) throw err;
      await sleep(50 * attempt);
    }
  }
}

/** A whole purge: `batch` again until one deletes fewer than `batchSize` rows; how many went in all. */
export async function purgeInBatches(batch: () => Promise<number>, batchSize: number): Promise<number> {
  let total = 0;
  for (;;) {
    const deleted = await batch();
    total += deleted;
    if (deleted < batchSize) return total;
  }
}
