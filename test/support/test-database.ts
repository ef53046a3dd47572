import { cpSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TEST_DATABASE_URL } from './test-env';

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
