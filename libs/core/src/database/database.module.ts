import { DynamicModule, Global, Logger, Module, OnApplicationShutdown } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import type { Pool } from 'pg';
import { DataSource, MixedList } from 'typeorm';
import { AppConfig } from '../config/app-config';
import { acquireDataDirLock } from './data-dir-lock';
import { dataSourceOptions, embeddedDataDir } from './data-source-options';
import { PGlitePool } from './pglite-pool';
import { unwatchPool, watchPool } from './pool-watch';
import { runMigrations } from './run-migrations';
import { driverMaster } from './statement';

export interface DatabaseModuleOptions {
  migrations: MixedList<Function | string>;
  /** Apply pending migrations while connecting (the server and the CLI do; nothing else needs to). */
  migrate?: boolean;
}

@Global()
@Module({})
export class DatabaseModule implements OnApplicationShutdown {
  private static releaseLock?: () => void;

  constructor(
    private readonly dataSource: DataSource,
    private readonly config: AppConfig,
  ) {}

  static forRoot(options: DatabaseModuleOptions): DynamicModule {
    return {
      module: DatabaseModule,
      imports: [
        TypeOrmModule.forRootAsync({
          inject: [AppConfig],
          useFactory: (config: AppConfig) => {
            if (!config.databaseUrl) DatabaseModule.releaseLock = acquireDataDirLock(config.dataDir);
            return {
              ...dataSourceOptions(config, { migrations: options.migrations }),
              autoLoadEntities: true,
              retryAttempts: 0,
            };
          },
          dataSourceFactory: async (opts) => {
            const embedded = !(opts as { url?: string }).url;
            const dataSource = new DataSource(opts!);
            await dataSource.initialize();
            if (!embedded) watchPool(driverPoolOf(dataSource));
            if (options.migrate !== false) {
              const applied = await runMigrations(dataSource, embedded);
              if (applied.length) new Logger('Database').log(`Applied migrations: ${applied.join(', ')}`);
            }
            return dataSource;
          },
        }),
      ],
    };
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.dataSource.isInitialized) {
      if (this.config.databaseUrl) unwatchPool(driverPoolOf(this.dataSource));
      await this.dataSource.destroy();
    }
    if (!this.config.databaseUrl) {
      await PGlitePool.close(embeddedDataDir(this.config));
      DatabaseModule.releaseLock?.();
      DatabaseModule.releaseLock = undefined;
    }
  }
}

const driverPoolOf = (dataSource: DataSource) => driverMaster<Pool>(dataSource)!;
