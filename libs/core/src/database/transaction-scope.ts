import { DataSource, EntityManager } from 'typeorm';
import { EmbeddedDatabaseDeadlock, HeldConnection, heldConnection, stackHere, transactionScopes } from './held-connection';
import { PGlitePool } from './pglite-pool';
import { driverMaster } from './statement';

function isEmbedded(dataSource: DataSource): boolean {
  return driverMaster(dataSource) instanceof PGlitePool;
}

/**
 * The one way to open a transaction (TransactionRunner and the few repositories that need one).
 * On the embedded database it marks the work it runs, so a statement the work starts on another
 * connection fails with EmbeddedDatabaseDeadlock instead of freezing the API.
 */
export function inTransaction<T>(dataSource: DataSource, work: (manager: EntityManager) => Promise<T>): Promise<T> {
  if (!isEmbedded(dataSource)) return dataSource.transaction(work);
  const outer = heldConnection();
  if (outer) return Promise.reject(new EmbeddedDatabaseDeadlock(outer, stackHere()));
  const scope: HeldConnection = { openedAt: stackHere(), holding: false };
  return transactionScopes.run(scope, () =>
    dataSource.transaction(async (manager) => {
      scope.holding = true;
      try {
        return await work(manager);
      } finally {
        scope.holding = false;
      }
    }),
  );
}
