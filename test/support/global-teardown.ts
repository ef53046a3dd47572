import { rmSync } from 'node:fs';
import { RUN_DIR_ENV } from './test-database';

/** Removes the run's directory (the PGlite template, the cached OpenAPI document), about 40 MB a run. */
export default function globalTeardown(): void {
  const runDir = process.env[RUN_DIR_ENV];
  if (runDir) rmSync(runDir, { recursive: true, force: true });
}
