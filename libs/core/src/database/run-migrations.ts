import { DataSource } from 'typeorm';

const MIGRATION_LOCK = 7_240_001;

/** Applies pending migrations; on PostgreSQL behind an advisory lock so one replica does it. */
export async function runMigrations(dataSource: DataSource, embedded: boolean): Promise<string[]> {
  if (embedded) {
    return (await dataSource.runMigrations({ transaction: 'each' })).map((m) => m.name);
  }
  const lockRunner = dataSource.createQueryRunner();
  await lockRunner.connect();
  try {
    await lockRunner.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    return (await dataSource.runMigrations({ transaction: 'each' })).map((m) => m.name);
  } finally {
    await lockRunner.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => undefined);
    await lockRunner.release();
  }
}
