import { cpSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { RUN_DATABASE_URL, TEST_DATABASE_URL } from './test-env';

/** Set by the global setup: a directory that lives as long as the run. */
export const RUN_DIR_ENV = 'TEST_RUN_DIR';
/** Set by the global setup on PGlite: a DATA_DIR whose embedded database is migrated. */
export const PGLITE_TEMPLATE_ENV = 'TEST_PGLITE_TEMPLATE';

/** A new DATA_DIR; on PGlite it starts with a copy of the run's migrated database. */
export function freshDataDir(prefix = 'api-test-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const template = process.env[PGLITE_TEMPLATE_ENV];
  if (template && !TEST_DATABASE_URL) cpSync(join(template, 'pglite'), join(dir, 'pglite'), { recursive: true });
  return dir;
}

/** A database made for one test app: its URL, and `drop` for when the app is closed. */
export interface AppDatabase {
  url: string;
  drop(): Promise<void>;
}

let appDatabases = 0;

/**
 * A database of one test app's own (PostgreSQL), cloned from the run's migrated template. Apps of
 * different configurations open at once in one process get one each: every process's idle workers
 * wake at a job's commit (docs/decisions/jobs.md), so on one database an app would run the other's
 * jobs with its own configuration.
 */
export async function createAppDatabase(): Promise<AppDatabase> {
  if (!RUN_DATABASE_URL || !TEST_DATABASE_URL) throw new Error('An app database of its own is made on PostgreSQL only.');
  const url = new URL(TEST_DATABASE_URL);
  const name = `${url.pathname.slice(1)}_app${++appDatabases}`;
  url.pathname = `/${name}`;
  await asAdmin(async (admin) => {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.query(`CREATE DATABASE ${name} TEMPLATE ${templateDatabaseOf(RUN_DATABASE_URL!)}`);
  });
  return {
    url: url.toString(),
    drop: async () => {
      await asAdmin((admin) => admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
    },
  };
}

/**
 * Forgets the jobs an earlier test file left queued in the worker's database (its webhook retries,
 * its actions' steps): the next file's app would run them with its own configuration (CI's likeliest
 * reason for a later file's one webhook retry held back past its wait: an earlier file's storm of them).
 */
export function forgetQueuedJobs(databaseUrl: string): Promise<void> {
  return onDatabase(databaseUrl, async (client) => {
    await client.query(`DO $$ BEGIN
      IF to_regclass('pgboss.job') IS NOT NULL THEN DELETE FROM pgboss.job WHERE state IN ('created', 'retry', 'active'); END IF;
    END $$`);
  });
}

/** The migrated database the global setup clones every test database from. */
export function templateDatabaseOf(runUrl: string): string {
  return `${new URL(runUrl).pathname.slice(1)}_template`;
}

/** A statement or a few on the run's server, from its maintenance database (`postgres`). */
export function asAdmin<T>(work: (admin: Client) => Promise<T>): Promise<T> {
  const url = new URL(RUN_DATABASE_URL!);
  url.pathname = '/postgres';
  return onDatabase(url.toString(), work);
}

/** `work` on a connection of its own to the database at `url`, closed after it. */
async function onDatabase<T>(url: string, work: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}
