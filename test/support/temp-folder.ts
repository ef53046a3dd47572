import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Every test removes what it makes in the temp folder (DATA_DIRs hold secrets.json). The run's
 * global setup points TMPDIR, and so os.tmpdir() in every Jest worker (started after the setup)
 * and in the processes they spawn, at a folder of the run's own; the global teardown, after the
 * last test of every project, names what is left in it, removes it, and fails the run. A folder
 * of its own rather than a listing of /tmp before and after: other runs on the machine make
 * entries of the same names meanwhile.
 */
const RUN_TMP_ENV = 'TEST_RUN_TMPDIR';
const SYSTEM_TMP_ENV = 'TEST_SYSTEM_TMPDIR';
/** What TMPDIR was before the run ('' for unset), restored at the end. */
const TMPDIR_BEFORE_ENV = 'TEST_TMPDIR_BEFORE';
/** Kept on purpose by tools the tests run (tsc and npm turn on Node's compile cache there). */
const TOOL_CACHES = new Set(['node-compile-cache']);

export function useRunTempFolder(env = process.env): void {
  if (env[RUN_TMP_ENV]) return;
  const system = tmpdir();
  const dir = mkdtempSync(join(system, 'test-tmp-'));
  // As /tmp itself: QEMU and the tests' own libvirtd run as other users and reach folders in it.
  chmodSync(dir, 0o1777);
  env[TMPDIR_BEFORE_ENV] = env.TMPDIR ?? '';
  env[SYSTEM_TMP_ENV] = system;
  env[RUN_TMP_ENV] = dir;
  env.TMPDIR = dir;
}

/**
 * The machine's temp folder, for what cannot live one level deeper: a UNIX socket path has at
 * most 107 bytes, and libvirtd's sockets sit deep under its folder. Whoever uses it removes what
 * it made there itself; the run's check does not see it.
 */
export function systemTmpdir(env = process.env): string {
  return env[SYSTEM_TMP_ENV] || tmpdir();
}

/** Removes the run's temp folder and throws, naming them, if tests left entries in it. */
export function closeRunTempFolder(env = process.env): void {
  const dir = env[RUN_TMP_ENV];
  if (!dir) return;
  const before = env[TMPDIR_BEFORE_ENV];
  if (before) env.TMPDIR = before;
  else delete env.TMPDIR;
  for (const name of [RUN_TMP_ENV, SYSTEM_TMP_ENV, TMPDIR_BEFORE_ENV]) delete env[name];
  const left = existsSync(dir) ? readdirSync(dir).filter((name) => !TOOL_CACHES.has(name)) : [];
  rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
  if (left.length) {
    throw new Error(
      `Tests left ${left.length} entries in the temp folder (now removed): ${left.sort().join(', ')}. ` +
        'Every test removes what it makes; the prefix names the spec or helper that made it.',
    );
  }
}
