import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A shell script put first on PATH as `virsh` for a describe block's tests (registered in its
 * beforeAll and afterAll); `dir()` is the script's folder, where it may leave what a test reads.
 */
export function standInVirsh(script: string): { dir: () => string } {
  let bin = '';
  let path: string | undefined;
  beforeAll(() => {
    bin = mkdtempSync(join(tmpdir(), 'fake-virsh-'));
    writeFileSync(join(bin, 'virsh'), script);
    chmodSync(join(bin, 'virsh'), 0o755);
    path = process.env.PATH;
    process.env.PATH = `${bin}:${path}`;
  });
  afterAll(() => {
    process.env.PATH = path;
    rmSync(bin, { recursive: true, force: true });
  });
  return { dir: () => bin };
}
