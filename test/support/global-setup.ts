import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLI } from './run-cli';
import globalTeardown from './global-teardown';
import { useRunTempFolder } from './temp-folder';
import { asAdmin, PGLITE_TEMPLATE_ENV, RUN_DIR_ENV, templateDatabaseOf } from './test-database';
import { RUN_DATABASE_URL, testEnv } from './test-env';

const ROOT = join(__dirname, '../..');

/**
 * Migrates a database once per run, with the built CLI's `migration:run`: on PostgreSQL a
 * template database the run's database (and one more per extra Jest worker, `<name>_w<k>`) is
 * cloned from; on PGlite a data directory each test app copies. Apps then start on a migrated
 * schema instead of applying every migration themselves. The run's temp folder (temp-folder.ts)
 * comes first, so the run's directory is in it too.
 */
export default async function globalSetup(globalConfig: { maxWorkers: number }): Promise<void> {
  if (process.env[RUN_DIR_ENV]) return; // the e2e and integration projects share one setup per run
  useRunTempFolder();
  try {
    await prepare(globalConfig);
  } catch (err) {
    // Jest runs no teardown after a failed setup; its own error is the one to show.
    try {
      globalTeardown();
    } catch {
      // Nothing a test made: no test ran.
    }
    throw err;
  }
}

async function prepare(globalConfig: { maxWorkers: number }): Promise<void> {
  execFileSync(process.execPath, [join(ROOT, 'scripts/build-if-needed.js')], { cwd: ROOT, stdio: 'inherit' });
  const runDir = mkdtempSync(join(tmpdir(), 'api-test-run-'));
  process.env[RUN_DIR_ENV] = runDir;
  if (!RUN_DATABASE_URL) {
    const template = join(runDir, 'pglite-template');
    migrate({ DATA_DIR: template });
    process.env[PGLITE_TEMPLATE_ENV] = template;
    return;
  }
  const url = new URL(RUN_DATABASE_URL);
  const name = url.pathname.slice(1);
  if (!/^[a-z0-9_]+$/.test(name)) throw new Error(`TEST_DATABASE_URL must name a plain database, got "${name}"`);
  const template = templateDatabaseOf(RUN_DATABASE_URL);
  const databases = [name];
  for (let worker = 2; worker <= globalConfig.maxWorkers; worker++) databases.push(`${name}_w${worker}`);
  await asAdmin(async (admin) => {
    for (const db of databases) await admin.query(`DROP DATABASE IF EXISTS ${db} WITH (FORCE)`);
    await admin.query(`DROP DATABASE IF EXISTS ${template} WITH (FORCE)`);
    await admin.query(`CREATE DATABASE ${template}`);
    url.pathname = `/${template}`;
    migrate({ DATABASE_URL: url.toString() });
    for (const db of databases) await admin.query(`CREATE DATABASE ${db} TEMPLATE ${template}`);
  });
}

function migrate(env: Record<string, string>): void {
  execFileSync(process.execPath, [CLI, 'migration:run'], {
    env: { PATH: process.env.PATH, ...testEnv(env) } as NodeJS.ProcessEnv,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}
