import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StoragePool } from './storage-pool';
import { Virsh } from './virsh';

describe('StoragePool.refresh', () => {
  let dir = '';
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'pool-refresh-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  /** A virsh that refuses `pool-refresh` as libvirt does while a volume is being copied, `busyTimes` times. */
  function poolCopying(busyTimes: number): StoragePool {
    const script = join(dir, 'virsh');
    writeFileSync(
      script,
      `#!/bin/sh
echo "$*" >> ${dir}/calls
n=$(wc -l < ${dir}/calls)
if [ "$n" -le ${busyTimes} ]; then
  echo "error: Failed to refresh pool default" >&2
  echo "error: internal error: pool 'default' has asynchronous jobs running." >&2
  exit 1
fi
`,
    );
    chmodSync(script, 0o755);
    return new StoragePool(new Virsh(90, script), 'default', 5_000, 10);
  }

  const calls = () => readFileSync(join(dir, 'calls'), 'utf8').trim().split('\n');

  it('asks again while another volume of the pool is being copied, and succeeds when the copy ends', async () => {
    await poolCopying(2).refresh('test:///default');
    expect(calls()).toHaveLength(3);
    expect(calls()[2]).toContain('pool-refresh default');
  });

  it('gives up with a retryable pool_busy after the wait it was given', async () => {
    // Each virsh call keeps the 5 s change timeout (a loaded CI machine took over 50 ms to run the
    // script, and a 50 ms call timeout answered hypervisor_unavailable); only the wait while busy is short.
    const pool = poolCopying(1_000);
    await expect(pool.refresh('test:///default', 50)).rejects.toMatchObject({ code: 'pool_busy', retryable: true });
  });
});
