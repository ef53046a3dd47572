import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadConfig } from './load-config';

/** What the config specs share: production's three secrets, the problems a bad environment gives, a fresh data folder. */
export const secrets = {
  JWT_SECRET: 'j'.repeat(32),
  SIGNING_SECRET: 's'.repeat(32),
  ENCRYPTION_KEY: Buffer.alloc(32, 1).toString('base64'),
};

export function problems(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
    return [];
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
}

const made: string[] = [];

/** A fresh DATA_DIR (loadConfig keeps generated secrets in it); a spec removes them with `removeDataDirs` after each test. */
export function dataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'cfg-'));
  made.push(dir);
  return dir;
}

export function removeDataDirs(): void {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
}
