import { rmSync } from 'node:fs';
import { closeRunTempFolder } from './temp-folder';
import { RUN_DIR_ENV } from './test-database';

/**
 * After the last test of every project (one teardown for all): removes the run's directory (the
 * PGlite template, the cached OpenAPI document, about 40 MB), then fails the run if tests left
 * anything else in the temp folder.
 */
export default function globalTeardown(): void {
  const runDir = process.env[RUN_DIR_ENV];
  if (runDir) rmSync(runDir, { recursive: true, force: true });
  delete process.env[RUN_DIR_ENV];
  closeRunTempFolder();
}
