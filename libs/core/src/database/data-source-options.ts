import { join } from 'node:path';
import { DataSourceOptions, MixedList } from 'typeorm';
import { AppConfig } from '../config/app-config';
import { PGlitePool } from './pglite-pool';

export interface DataSourceParts {
  entities?: MixedList<Function | string>;
  migrations?: MixedList<Function | string>;
}

export function embeddedDataDir(config: AppConfig): string {
  return join(config.dataDir, 'pglite');
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
    },
  };
}
