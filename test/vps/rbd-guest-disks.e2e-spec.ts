import { execFileSync } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { closeSync, createReadStream, mkdtempSync, openSync, readdirSync, readSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '@app/core';
import { RbdDiskBackups } from '../../libs/vps/src/compute/rbd-disks/rbd-disk-backups';
import { RbdGuestDisks } from '../../libs/vps/src/compute/rbd-disks/rbd-guest-disks';
import { RbdSnapshotImages } from '../../libs/vps/src/compute/rbd-disks/rbd-snapshot-images';
import { MARK_KEY } from '../../libs/vps/src/compute/volumes/rbd-volume-backend';
import { cephMonHost, cephTestsEnabled, cephTool, CEPH_DIR } from '../support/ceph';
import { TEST_DATABASE_URL, testEnv } from '../support/test-env';

function digestOfFile(file: string, bytes: number): string {
  const data = Buffer.alloc(bytes);
  const fd = openSync(file, 'r');
  const read = readSync(fd, data, 0, bytes, 0);
  closeSync(fd);
  return createHash('sha256').update(data.subarray(0, read)).digest('hex');
}

/** No database in it: CI runs it in the PostgreSQL pass only (the PGlite pass would repeat it as it is). */
const enabled = cephTestsEnabled() && (TEST_DATABASE_URL !== undefined || !process.env.CI);
const MIB = 1024 ** 2;
const GIB = 1024 ** 3;

/**
 * A VPS's disks as RBD images against the one-node cluster of scripts/ensure-ceph.sh (cephx off): an
 * image imported from a qcow2 file (through qemu-img), root disks cloned from it, a seed, and their
 * removal, a root's snapshot image and its backup as qcow2 restored; in a pool of the suite's own, which the first import makes, deleted at the end. What the cluster holds is read with the
 * operator's rbd tool.
 */
(enabled ? describe : describe.skip)('VPS disks as RBD images (Ceph)', () => {
  const pool = `disks-test-${randomUUID().slice(0, 8)}`;
  let dir: string;
  let raw: string;
  let qcow2: string;
  let ours: RbdGuestDisks;
  let theirs: RbdGuestDisks;

  const rbd = (...args: string[]) => cephTool('rbd', ...args);
  const info = async (image: string) => JSON.parse(await rbd('info', `${pool}/${image}`, '--format', 'json')) as Record<string, unknown>;
  const markOf = async (image: string) =>
    (JSON.parse(await rbd('image-meta', 'list', `${pool}/${image}`, '--format', 'json')) as Record<string, string>)[MARK_KEY];
  const images = async () => (JSON.parse(await rbd('ls', '-p', pool, '--format', 'json')) as string[]).sort();
  /** The first `bytes` of an image as the operator exports them. */
  const digestOf = (image: string, bytes: number) => {
    const out = join(dir, `${randomUUID()}.raw`);
    execFileSync('rbd', ['-c', join(CEPH_DIR, 'ceph.conf'), 'export', '--no-progress', `${pool}/${image}`, out]);
    const digest = digestOfFile(out, bytes);
    rmSync(out);
    return digest;
  };

  const disks = (deployment: string) => {
    const config = loadConfig(testEnv({ DATA_DIR: dir, CEPH_MON_HOST: cephMonHost() }));
    return new RbdGuestDisks({ ...config.volumes, pool }, { id: () => Promise.resolve(deployment) });
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'disks-rbd-'));
    // A 64 MiB disk with bytes at its start and at 40 MiB, and holes between: qcow2 as images come.
    raw = join(dir, 'image.raw');
    const fd = openSync(raw, 'w');
    writeSync(fd, Buffer.alloc(MIB, 'boot sector and root fs '), 0, MIB, 0);
    writeSync(fd, Buffer.alloc(MIB, 'later data '), 0, MIB, 40 * MIB);
    closeSync(fd);
    execFileSync('truncate', ['-s', String(64 * MIB), raw]);
    qcow2 = join(dir, 'image.qcow2');
    execFileSync('qemu-img', ['convert', '-f', 'raw', '-O', 'qcow2', raw, qcow2]);
    ours = disks('disks-test-ours');
    theirs = disks('disks-test-theirs');
  });

  afterAll(async () => {
    await cephTool('ceph', 'osd', 'pool', 'rm', pool, pool, '--yes-i-really-really-mean-it').catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  });

  const rawDigest = (bytes: number) => digestOfFile(raw, bytes);

  it('makes the pool for RBD, imports a qcow2 image as a raw RBD image with a protected @base snapshot and the mark; again is no change', async () => {
    const imageId = randomUUID();
    expect(JSON.parse(await cephTool('ceph', 'osd', 'pool', 'ls', '--format', 'json'))).not.toContain(pool);
    await ours.importImage(imageId, qcow2, 'qcow2');
    expect(await cephTool('ceph', 'osd', 'pool', 'application', 'get', pool)).toContain('rbd');
    expect(await info(`img-${imageId}`)).toMatchObject({ size: 64 * MIB, format: 2 });
    expect(await info(`img-${imageId}@base`)).toMatchObject({ protected: 'true' });
    expect(await markOf(`img-${imageId}`)).toBe('disks-test-ours');
    expect(digestOf(`img-${imageId}`, 64 * MIB)).toBe(rawDigest(64 * MIB));
    const snapId = JSON.parse(await rbd('snap', 'ls', `${pool}/img-${imageId}`, '--format', 'json'))[0].id;
    await ours.importImage(imageId, qcow2, 'qcow2');
    expect(JSON.parse(await rbd('snap', 'ls', `${pool}/img-${imageId}`, '--format', 'json'))).toEqual([
      expect.objectContaining({ id: snapId, name: 'base' }),
    ]);
  });

  it('imports again over what an interrupted import left (an image without @base), and takes a raw file as it is', async () => {
    const imageId = randomUUID();
    await rbd('create', `${pool}/img-${imageId}`, '--size', '8M');
    await ours.importImage(imageId, raw, 'raw');
    expect(await info(`img-${imageId}`)).toMatchObject({ size: 64 * MIB });
    expect(await info(`img-${imageId}@base`)).toMatchObject({ protected: 'true' });
    expect(digestOf(`img-${imageId}`, 64 * MIB)).toBe(rawDigest(64 * MIB));
  });

  it('clones a root disk from the image, grown to the size; the seed from its file; removes both, then the image', async () => {
    const imageId = randomUUID();
    const serviceId = randomUUID();
    await ours.importImage(imageId, qcow2, 'qcow2');
    await ours.createRoot(serviceId, imageId, 1);
    expect(await info(`svc-${serviceId}-root`)).toMatchObject({
      size: GIB,
      parent: expect.objectContaining({ pool, image: `img-${imageId}`, snapshot: 'base' }),
    });
    expect(digestOf(`svc-${serviceId}-root`, 64 * MIB)).toBe(rawDigest(64 * MIB));
    expect(await markOf(`svc-${serviceId}-root`)).toBe('disks-test-ours');
    // Again (a retry after a lost answer), and with a smaller size: kept as it is.
    await ours.createRoot(serviceId, imageId, 1);
    expect(await info(`svc-${serviceId}-root`)).toMatchObject({ size: GIB });

    const iso = join(dir, 'seed.iso');
    execFileSync('truncate', ['-s', '2M', iso]);
    await ours.writeSeed(serviceId, iso);
    expect(await info(`svc-${serviceId}-seed`)).toMatchObject({ size: 2 * MIB });
    expect(ours.source(`svc-${serviceId}-root`)).toEqual({
      type: 'rbd',
      pool,
      image: `svc-${serviceId}-root`,
      monitors: [{ host: cephMonHost().split(':')[0], port: Number(cephMonHost().split(':')[1]) }],
      auth: null,
    });

    await expect(ours.removeImage(imageId)).rejects.toMatchObject({ code: 'image_in_use' });
    expect(await images()).toContain(`img-${imageId}`);
    await rbd('snap', 'create', `${pool}/svc-${serviceId}-root@before-backup`);
    await ours.removeMachine(serviceId);
    await ours.removeMachine(serviceId);
    expect(await images()).not.toEqual(expect.arrayContaining([`svc-${serviceId}-root`]));
    expect(await images()).not.toEqual(expect.arrayContaining([`svc-${serviceId}-seed`]));
    await ours.removeImage(imageId);
    await ours.removeImage(imageId);
    expect(await images()).not.toContain(`img-${imageId}`);
  });

  it("snapshots a root into a standalone image, once, over an interrupted try's; the root keeps no snapshot", async () => {
    const imageId = randomUUID();
    const serviceId = randomUUID();
    const snapshotId = randomUUID();
    await ours.importImage(imageId, qcow2, 'qcow2');
    await ours.createRoot(serviceId, imageId, 1);
    const snapshots = new RbdSnapshotImages(ours.images);
    await snapshots.capture(serviceId, snapshotId);
    await snapshots.capture(serviceId, snapshotId);
    // Written to the root after the point in time (its first MiB): not in the snapshot image.
    await rbd(
      'bench',
      '--io-type',
      'write',
      '--io-size',
      '4096',
      '--io-total',
      String(MIB),
      '--io-pattern',
      'seq',
      `${pool}/svc-${serviceId}-root`,
    );
    expect(digestOf(`svc-${serviceId}-root`, 64 * MIB)).not.toBe(rawDigest(64 * MIB));
    // An interrupted try left the image without @base (its clone made, not flattened).
    await rbd('snap', 'protect', `${pool}/svc-${serviceId}-root@snap-${snapshotId}`);
    await rbd('clone', `${pool}/svc-${serviceId}-root@snap-${snapshotId}`, `${pool}/img-${snapshotId}`);
    await snapshots.copyToImage(serviceId, snapshotId);
    const made = await info(`img-${snapshotId}`);
    expect(made).toMatchObject({ size: GIB });
    expect(made.parent).toBeUndefined();
    expect(await info(`img-${snapshotId}@base`)).toMatchObject({ protected: 'true' });
    expect(await markOf(`img-${snapshotId}`)).toBe('disks-test-ours');
    expect(digestOf(`img-${snapshotId}`, 64 * MIB)).toBe(rawDigest(64 * MIB));
    expect(JSON.parse(await rbd('snap', 'ls', `${pool}/svc-${serviceId}-root`, '--format', 'json'))).toEqual([]);
    expect(await snapshots.sizeOf(snapshotId)).toBeGreaterThan(0);
    await snapshots.copyToImage(serviceId, snapshotId);
    await ours.removeMachine(serviceId);
    await ours.removeImage(snapshotId);
    await ours.removeImage(imageId);
  });

  it('backs a root up as qcow2 from a snapshot it removes at release, and restores the root from it', async () => {
    const imageId = randomUUID();
    const serviceId = randomUUID();
    const backupId = randomUUID();
    await ours.importImage(imageId, qcow2, 'qcow2');
    await ours.createRoot(serviceId, imageId, 1);
    const backups = new RbdDiskBackups(ours.images, 'qemu-img', dir);
    await backups.capture(serviceId, backupId);
    await backups.capture(serviceId, backupId);
    const file = await backups.toQcow2(serviceId, backupId);
    expect(JSON.parse(execFileSync('qemu-img', ['info', '--output', 'json', file], { encoding: 'utf8' }))).toMatchObject({
      format: 'qcow2',
      'virtual-size': GIB,
    });
    const kept = join(dir, `kept-${backupId}.qcow2`);
    execFileSync('cp', [file, kept]);
    await backups.release(serviceId, backupId);
    await backups.release(serviceId, backupId);
    expect(JSON.parse(await rbd('snap', 'ls', `${pool}/svc-${serviceId}-root`, '--format', 'json'))).toEqual([]);
    expect(readdirSync(dir).filter((name) => name.startsWith('rbd-backup-'))).toEqual([]);

    // The root overwritten at its start, then restored from the backup: the image's bytes again, an image of its own.
    const zeros = join(dir, 'zeros.raw');
    execFileSync('truncate', ['-s', String(GIB), zeros]);
    await ours.removeMachine(serviceId);
    execFileSync('rbd', ['-c', join(CEPH_DIR, 'ceph.conf'), 'import', '--no-progress', zeros, `${pool}/svc-${serviceId}-root`]);
    await backups.restore(serviceId, () => Promise.resolve(createReadStream(kept)));
    expect(digestOf(`svc-${serviceId}-root`, 64 * MIB)).toBe(rawDigest(64 * MIB));
    expect(await info(`svc-${serviceId}-root`)).toMatchObject({ size: GIB });
    expect((await info(`svc-${serviceId}-root`)).parent).toBeUndefined();
    expect(await markOf(`svc-${serviceId}-root`)).toBe('disks-test-ours');
    // A backup that is no disk image: refused, and nothing of the API host's copy left.
    const garbage = join(dir, 'garbage');
    execFileSync('truncate', ['-s', '1M', garbage]);
    await expect(backups.restore(serviceId, () => Promise.resolve(createReadStream(garbage)))).rejects.toMatchObject({
      code: 'restore_failed',
    });
    expect(readdirSync(dir).filter((name) => name.startsWith('rbd-restore-'))).toEqual([]);
    expect(digestOf(`svc-${serviceId}-root`, 64 * MIB)).toBe(rawDigest(64 * MIB));
    await ours.removeMachine(serviceId);
    await ours.removeImage(imageId);
  });

  it('neither replaces, grows nor removes the disks or images of another deployment', async () => {
    const imageId = randomUUID();
    const serviceId = randomUUID();
    await theirs.importImage(imageId, qcow2, 'qcow2');
    await theirs.createRoot(serviceId, imageId, 1);
    await expect(ours.createRoot(serviceId, imageId, 2)).rejects.toMatchObject({ code: 'foreign_volume' });
    await expect(ours.removeMachine(serviceId)).rejects.toMatchObject({ code: 'foreign_volume' });
    await theirs.writeSeed(serviceId, qcow2);
    await expect(ours.writeSeed(serviceId, qcow2)).rejects.toMatchObject({ code: 'foreign_volume' });
    await expect(ours.removeImage(imageId)).rejects.toMatchObject({ code: 'foreign_volume' });
    expect(await info(`svc-${serviceId}-root`)).toMatchObject({ size: GIB });
    expect(await markOf(`svc-${serviceId}-root`)).toBe('disks-test-theirs');
  });
});
