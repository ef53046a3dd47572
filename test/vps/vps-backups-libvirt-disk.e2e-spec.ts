import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, ReadStream, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '@app/core';
import { LocalBackupStore } from '../../libs/vps/src/backups/local-backup-store';
import { LibvirtParts } from '../../libs/vps/src/compute/libvirt/libvirt-parts';
import { LibvirtComputeProvider } from '../../libs/vps/src/compute/libvirt/libvirt-compute.provider';
import { libvirtCompute } from '../support/hosts';
import { libvirtTestsEnabled, removeDomain, removeVolume, virsh } from '../support/libvirt';
import { CLEANUP_TIMING } from '../support/libvirt-cleanup';
import { testEnv } from '../support/test-env';
import { waitForOrFail } from '../support/wait-for';

const POOL = 'default';

/**
 * The libvirt half of a backup and a restore without a guest system: a stopped domain
 * with no OS (SeaBIOS idles on it) and a small root volume of known bytes. The volume is copied
 * and read out through `vol-download`, stored, deleted by hand, and written back through
 * `vol-upload`; the domain is started by the restore. The real-guest test
 * (vps-local-pool-libvirt.e2e-spec.ts) shows the same on a Debian guest with files.
 */
(libvirtTestsEnabled() ? describe : describe.skip)('Backup and restore of a disk volume (libvirt, no guest system)', () => {
  const serviceId = randomUUID();
  const domain = `svc-${serviceId}`;
  const root = `${domain}-root.qcow2`;
  const instance = { serviceId, providerRef: domain, region: '' };
  // Made when the suite runs: a skipped describe's body runs too, and nothing of it cleans up.
  let dir: string;
  let compute: LibvirtComputeProvider;
  let streamed: LibvirtComputeProvider;
  let store: LocalBackupStore;
  let original: string;

  const volumePath = async () => (await virsh('vol-path', '--pool', POOL, root)).trim();
  const sha = (file: string) => execFileSync('sha256sum', [file], { encoding: 'utf8' }).split(' ')[0];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'backup-disk-'));
    const parts = (env: Record<string, string>) =>
      new LibvirtParts(loadConfig(testEnv({ DATA_DIR: dir, ...libvirtCompute(env) })), { id: () => Promise.resolve('backup-disk-test') });
    const provider = (env: Record<string, string>) => new LibvirtComputeProvider(parts(env));
    // On a fresh machine no suite has uploaded an image yet, which makes the pool: made here as that upload would.
    await parts({}).pool.ensure('qemu:///system');
    compute = provider({});
    streamed = provider({ LIBVIRT_DISK_TRANSFER: 'stream' });
    store = new LocalBackupStore(join(dir, 'backups'));
    // A qcow2 with 1 MiB of 0xab at 4 MiB, made where the pool keeps its files.
    const made = join(dir, 'made.qcow2');
    execFileSync('qemu-img', ['create', '-q', '-f', 'qcow2', made, '64M']);
    execFileSync('qemu-io', ['-f', 'qcow2', '-c', 'write -P 0xab 4M 1M', made], { stdio: 'ignore' });
    await virsh('vol-create-as', '--pool', POOL, '--name', root, '--capacity', '64M', '--format', 'qcow2');
    await virsh('vol-upload', '--pool', POOL, '--vol', root, '--file', made);
    original = made;
    const xml = join(dir, 'domain.xml');
    writeFileSync(
      xml,
      `<domain type='qemu'><name>${domain}</name><memory unit='MiB'>32</memory><vcpu>1</vcpu><os><type arch='x86_64' machine='pc'>hvm</type></os></domain>`,
    );
    await virsh('define', xml);
  });

  // A define or volume whose virsh call timed out is waited for (libvirt-cleanup.ts).
  afterAll(async () => {
    await removeDomain(domain);
    for (const volume of [root, `img-${serviceId}`]) await removeVolume(POOL, volume);
    rmSync(dir, { recursive: true, force: true });
  }, 3 * CLEANUP_TIMING.settleMs);

  it('exports the stopped domain disk as a standalone qcow2 stream, and leaves no copy in the pool', async () => {
    const disk = await compute.exportDisk(instance, serviceId);
    expect(disk.consistency).toBe('filesystem');
    // The hypervisor is this machine: the copy is read from its file.
    expect(disk.stream).toBeInstanceOf(ReadStream);
    const bytes = await store.put('vps/disk.qcow2', disk.stream);
    await disk.release();
    expect(bytes).toBeGreaterThan(1024 * 1024);
    expect(await virsh('vol-list', '--pool', POOL)).not.toContain(`img-${serviceId}`);
    const stored = join(dir, 'backups', 'vps', 'disk.qcow2');
    expect(execFileSync('qemu-img', ['compare', '-q', original, stored]).length).toBe(0);
  });

  it("gives the same bytes through libvirt's stream (LIBVIRT_DISK_TRANSFER=stream), over a copy an earlier try left", async () => {
    // A half copy of a lost try, under the name this export uses.
    await virsh('vol-create-as', '--pool', POOL, '--name', `img-${serviceId}`, '--capacity', '1M', '--format', 'raw');
    const disk = await streamed.exportDisk(instance, serviceId);
    expect(disk.stream).not.toBeInstanceOf(ReadStream);
    await store.put('vps/streamed.qcow2', disk.stream);
    await disk.release();
    expect(await virsh('vol-list', '--pool', POOL)).not.toContain(`img-${serviceId}`);
    expect(sha(join(dir, 'backups', 'vps', 'streamed.qcow2'))).toBe(sha(join(dir, 'backups', 'vps', 'disk.qcow2')));
  });

  it('restores it onto a root volume deleted by hand and starts the domain', async () => {
    await virsh('vol-delete', '--pool', POOL, root);
    const stored = join(dir, 'backups', 'vps', 'disk.qcow2');
    const size = Number(execFileSync('stat', ['-c', '%s', stored], { encoding: 'utf8' }).trim());
    const task = await compute.restoreMachine(instance, () => store.get('vps/disk.qcow2'), size);
    await waitForOrFail(
      () => compute.taskStatus(instance, task),
      (status) => status.state === 'succeeded',
      30_000,
      (status) => `the restored domain did not start: ${JSON.stringify(status)}`,
    );
    expect(await virsh('domstate', domain)).toBe('running');
    expect(sha(await volumePath())).toBe(sha(stored));
    expect(execFileSync('qemu-img', ['compare', '-q', '-U', original, await volumePath()]).length).toBe(0);
  });
});
