// The DataSource the TypeORM CLI uses (`npm run typeorm -- migration:show`), on the same
// configuration as the server: PostgreSQL when DATABASE_URL is set, otherwise the embedded PGlite.
import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { dataSourceOptions, loadConfig } from './libs/core/src';
import { allMigrations } from './apps/api/src/migrations';

export default new DataSource(
  dataSourceOptions(loadConfig(), {
    entities: [__dirname + '/libs/*/src/**/*.entity.ts'],
    migrations: allMigrations,
  }),
);
