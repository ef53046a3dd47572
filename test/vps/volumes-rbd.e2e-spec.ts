import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '@app/core';
import { Virsh } from '../../libs/vps/src/compute/libvirt/virsh';
import { CephCli } from '../../libs/vps/src/compute/volumes/ceph-cli';
import { MARK_KEY, RbdVolumeBackend } from '../../libs/vps/src/compute/volumes/rbd-volume-backend';
import { GIB } from '../../libs/vps/src/compute/volumes/volume-backend';
import { cephMonHost, cephTestsEnabled, cephTool } from '../support/ceph';
import { TEST_DATABASE_URL, testEnv } from '../support/test-env';

/** No database in it: CI runs it in the PostgreSQL pass only (the PGlite pass would repeat it as it is). */
const enabled = cephTestsEnabled() && (TEST_DATABASE_URL !== undefined || !process.env.CI);

/**
 * The rbd volume backend against the one-node cluster of scripts/ensure-ceph.sh (cephx off): a
 * pool of the suite's own, which the backend makes, and images of two deployments in it. The pool
 * is deleted at the end, images and all.
 */
(enabled ? describe : describe.skip)('Volumes as RBD images (Ceph)', () => {
  const pool = `volumes-test-${randomUUID().slice(0, 8)}`;
  const ref = (volumeId = randomUUID()) => ({ volumeId, region: 'eu-central' });
  let dir: string;
  let ours: RbdVolumeBackend;
  let theirs: RbdVolumeBackend;

  const backend = (deployment: string, env: Record<string, string> = {}) => {
    const config = loadConfig(
      testEnv({ DATA_DIR: dir, VOLUME_BACKEND: 'rbd', CEPH_MON_HOST: cephMonHost(), VOLUMES_RBD_POOL: pool, ...env }),
    );
    return new RbdVolumeBackend(config.volumes, { id: () => Promise.resolve(deployment) }, new Virsh(), 30_000);
  };
  const rbd = (...args: string[]) => cephTool('rbd', ...args);
  const markOf = async (volumeId: string) =>
    (JSON.parse(await rbd('image-meta', 'list', `${pool}/vol-${volumeId}`, '--format', 'json')) as Record<string, string>)[MARK_KEY];

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'volumes-rbd-'));
    ours = backend('volumes-test-ours');
    theirs = backend('volumes-test-theirs');
  });

  afterAll(async () => {
    await cephTool('ceph', 'osd', 'pool', 'rm', pool, pool, '--yes-i-really-really-mean-it').catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  });

  it('makes the pool for RBD when missing, and an image of the size carrying the deployment’s mark; again is no change', async () => {
    const volume = ref();
    expect(JSON.parse(await cephTool('ceph', 'osd', 'pool', 'ls', '--format', 'json'))).not.toContain(pool);
    await ours.create(volume, 1);
    expect(await cephTool('ceph', 'osd', 'pool', 'application', 'get', pool)).toContain('rbd');
    expect(JSON.parse(await rbd('info', `${pool}/vol-${volume.volumeId}`, '--format', 'json'))).toMatchObject({ size: GIB, format: 2 });
    expect(await markOf(volume.volumeId)).toBe('volumes-test-ours');
    await ours.create(volume, 3);
    expect(await ours.sizeOf(volume)).toBe(GIB);
    expect(await ours.exists(volume)).toBe(true);
    expect(ours.diskSource(volume)).toEqual({
      type: 'rbd',
      pool,
      image: `vol-${volume.volumeId}`,
      monitors: [{ host: cephMonHost().split(':')[0], port: Number(cephMonHost().split(':')[1]) }],
      auth: null,
    });
  });

  it('grows an image, and refuses to shrink it', async () => {
    const volume = ref();
    await ours.create(volume, 1);
    await ours.resize(volume, 3);
    await ours.resize(volume, 3);
    expect(await ours.sizeOf(volume)).toBe(3 * GIB);
    await expect(ours.resize(volume, 2)).rejects.toMatchObject({ code: 'invalid_size', retryable: false });
    expect(await ours.sizeOf(volume)).toBe(3 * GIB);
    await expect(ours.resize(ref(), 2)).rejects.toMatchObject({ code: 'not_found' });
  });

  it('lists its own images and unmarked `vol-` ones, never another deployment’s, which it neither grows, adopts nor removes', async () => {
    const mine = ref();
    const foreign = ref();
    const byHand = ref();
    await ours.create(mine, 1);
    await theirs.create(foreign, 1);
    await rbd('create', `${pool}/vol-${byHand.volumeId}`, '--size', '1G');
    await rbd('create', `${pool}/not-a-volume`, '--size', '1G');
    const listed = await ours.list();
    expect(listed).toContainEqual({ ref: { volumeId: mine.volumeId, region: '' }, sizeBytes: GIB, mark: 'ours' });
    expect(listed).toContainEqual({ ref: { volumeId: byHand.volumeId, region: '' }, sizeBytes: GIB, mark: 'none' });
    expect(listed.map((volume) => volume.ref.volumeId)).not.toContain(foreign.volumeId);
    for (const step of [() => ours.resize(foreign, 2), () => ours.remove(foreign), () => ours.create(foreign, 1)]) {
      await expect(step()).rejects.toMatchObject({ code: 'foreign_volume' });
    }
    expect(await markOf(foreign.volumeId)).toBe('volumes-test-theirs');
    expect(await theirs.sizeOf(foreign)).toBe(GIB);
    // An image a crash left between create and mark is its own: creating it again marks it.
    await ours.create(byHand, 1);
    expect(await markOf(byHand.volumeId)).toBe('volumes-test-ours');
  });

  it('removes an image, and one that is gone is fine', async () => {
    const volume = ref();
    await ours.create(volume, 1);
    await ours.remove(volume);
    await ours.remove(volume);
    expect(await ours.exists(volume)).toBe(false);
    await expect(ours.sizeOf(volume)).rejects.toMatchObject({ code: 'not_found' });
    expect(await rbd('ls', '-p', pool)).not.toContain(volume.volumeId);
  });

  it('fails with a retryable error, soon, when no monitor answers', async () => {
    const config = loadConfig(testEnv({ DATA_DIR: dir, VOLUME_BACKEND: 'rbd', CEPH_MON_HOST: '127.0.0.1:1', VOLUMES_RBD_POOL: pool }));
    const cli = new CephCli(config.volumes, { mountSeconds: 2, opSeconds: 2 });
    const silent = new RbdVolumeBackend(config.volumes, { id: () => Promise.resolve('x') }, new Virsh(), 30_000, cli);
    const started = Date.now();
    await expect(silent.create(ref(), 1)).rejects.toMatchObject({ code: 'volume_backend_unavailable', retryable: true });
    await expect(silent.list()).rejects.toMatchObject({ retryable: true });
    expect(Date.now() - started).toBeLessThan(15_000);
  });
});
