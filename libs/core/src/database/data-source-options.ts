import { join } from 'node:path';
import { Logger } from '@nestjs/common';
import type { ClientBase } from 'pg';
import { DataSourceOptions, MixedList } from 'typeorm';
import { AppConfig } from '../config/app-config';
import { PGlitePool } from './pglite-pool';
import { trackStatements } from './pool-watch';

export interface DataSourceParts {
  entities?: MixedList<Function | string>;
  migrations?: MixedList<Function | string>;
}

export function embeddedDataDir(config: AppConfig): string {
  return join(config.dataDir, 'pglite');
}

const poolLogger = new Logger('Database');

/**
 * Every pooled connection keeps an `error` listener for its whole life. pg-pool listens only while a
 * connection is idle, and TypeORM only from a query runner's connect to its release: a server's
 * termination (a PostgreSQL restart) arriving in between was an `error` event nobody heard, which
 * ends the process. The holder still sees the connection fail at its next query and drops it.
 */
function listenForLifetime(client: ClientBase): void {
  client.on('error', (err) => poolLogger.warn(`Database connection lost: ${err.message}`));
}

/** PostgreSQL when DATABASE_URL is set, otherwise the embedded PGlite under DATA_DIR. */
export function dataSourceOptions(config: AppConfig, parts: DataSourceParts = {}): DataSourceOptions {
  const common = {
    type: 'postgres' as const,
    synchronize: false,
    migrationsRun: false,
    installExtensions: false,
    entities: parts.entities ?? [],
    migrations: parts.migrations ?? [],
    migrationsTableName: 'migrations',
    logging: false,
  };
  if (!config.databaseUrl) {
    return {
      ...common,
      driver: {
        Pool: class extends PGlitePool {
          constructor() {
            super({ dataDir: embeddedDataDir(config) });
          }
        },
      },
    };
  }
  return {
    ...common,
    url: config.databaseUrl,
    poolSize: config.dbPoolSize,
    applicationName: 'hosting-account-api',
    extra: {
      connectionTimeoutMillis: 3000,
      idleTimeoutMillis: 30000,
      statement_timeout: config.dbStatementTimeoutMs || undefined,
      keepAlive: true,
      onConnect: (client: ClientBase) => {
        listenForLifetime(client);
        trackStatements(client);
      },
    },
  };
}
