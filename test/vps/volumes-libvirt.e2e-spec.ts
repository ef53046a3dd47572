import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AppConfig, loadConfig } from '@app/core';
import { LibvirtComputeProvider } from '../../libs/vps/src/compute/libvirt/libvirt-compute.provider';
import { LibvirtParts } from '../../libs/vps/src/compute/libvirt/libvirt-parts';
import { Virsh } from '../../libs/vps/src/compute/libvirt/virsh';
import { diskWithSerial } from '../../libs/vps/src/compute/libvirt/volume-disks';
import { cephSecretUuid } from '../../libs/vps/src/compute/volumes/ceph-secret';
import { LocalVolumeBackend } from '../../libs/vps/src/compute/volumes/local-volume-backend';
import { RbdVolumeBackend } from '../../libs/vps/src/compute/volumes/rbd-volume-backend';
import { GIB } from '../../libs/vps/src/compute/volumes/volume-backend';
import { volumeBackendFor } from '../../libs/vps/src/compute/volumes/volume-backend-for';
import { volumeSerial } from '../../libs/vps/src/compute/volumes/volume-names';
import { cephMonHost, cephTestsEnabled, cephTool } from '../support/ceph';
import { libvirtCompute } from '../support/hosts';
import { LIBVIRT_URI, libvirtTestsEnabled, removeDomain, removeVolume, virsh } from '../support/libvirt';
import { CLEANUP_TIMING } from '../support/libvirt-cleanup';
import { TEST_DATABASE_URL, testEnv } from '../support/test-env';
import { buildVolumeGuest, GuestDisk, VolumeGuest } from '../support/volume-guest';

/** No database in it: CI runs it in the PostgreSQL pass only (the PGlite pass would repeat it as it is). */
const enabled = libvirtTestsEnabled() && cephTestsEnabled() && (TEST_DATABASE_URL !== undefined || !process.env.CI);

const SECTORS_PER_GIB = GIB / 512;

/**
 * Volumes on a running guest: an RBD image of the one-node Ceph (scripts/ensure-ceph.sh, cephx off)
 * and a raw volume of the `default` pool, hot-plugged into the tiny guest (volume-guest.ts, which
 * reports its disks), grown live, unplugged, and attached to the machine while it is off. libvirt
 * and QEMU as on a host, with Debian's qemu-block-extra for RBD. About 30 s, one small guest.
 */
(enabled ? describe : describe.skip)('Volumes on a libvirt guest (RBD and local)', () => {
  const serviceId = randomUUID();
  const domain = `svc-${serviceId}`;
  const instance = { serviceId, providerRef: domain, region: '' };
  const pool = `volumes-test-${randomUUID().slice(0, 8)}`;
  const onRbd = { volumeId: randomUUID(), region: '' };
  const onPool = { volumeId: randomUUID(), region: '' };
  const withSecret = { volumeId: randomUUID(), region: '' };
  const image = `img-${randomUUID()}`;
  const secretClient = `volumes-test-${randomUUID().slice(0, 8)}`;
  const identity = { id: () => Promise.resolve('volumes-libvirt-test') };
  let dir: string;
  let guest: VolumeGuest;
  let config: AppConfig;
  let compute: LibvirtComputeProvider;
  let rbd: RbdVolumeBackend;
  let local: LocalVolumeBackend;

  const serialOf = (volume: { volumeId: string }) => volumeSerial(volume.volumeId);
  const has = (volume: { volumeId: string }, sectors?: number) => (disks: GuestDisk[]) =>
    disks.some((disk) => disk.serial === serialOf(volume) && (sectors === undefined || disk.sectors === sectors));
  const capacity = async (target: string) => Number(/^Capacity:\s+(\d+)/m.exec(await virsh('domblkinfo', domain, target))?.[1]);
  const inactiveTarget = async (volume: { volumeId: string }) =>
    diskWithSerial(await virsh('dumpxml', '--inactive', domain), serialOf(volume))?.target;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'volumes-libvirt-'));
    guest = buildVolumeGuest();
    const env = { VOLUME_BACKEND: 'rbd', CEPH_MON_HOST: cephMonHost(), VOLUMES_RBD_POOL: pool };
    config = loadConfig(testEnv({ DATA_DIR: dir, ...libvirtCompute({ LIBVIRT_DOMAIN_TEMPLATE: guest.template, ...env }) }));
    const parts = new LibvirtParts(config, identity);
    compute = new LibvirtComputeProvider(parts);
    rbd = volumeBackendFor(parts, config, identity) as RbdVolumeBackend;
    local = new LocalVolumeBackend(parts);
    await compute.createMachine(instance, { vcpus: 1, memoryMb: 128, powerOn: true });
    await guest.until(domain, () => true, 'the boot');
  }, 120_000);

  afterAll(async () => {
    await removeDomain(domain);
    for (const volume of [`vol-${onPool.volumeId}`, image]) await removeVolume('default', volume);
    await cephTool('ceph', 'osd', 'pool', 'rm', pool, pool, '--yes-i-really-really-mean-it').catch(() => undefined);
    await virsh('secret-undefine', cephSecretUuid(secretClient, config.volumes.cephMonitors)).catch(() => undefined);
    guest?.remove();
    rmSync(dir, { recursive: true, force: true });
  }, 3 * CLEANUP_TIMING.settleMs);

  it('hot-plugs an RBD volume with its serial, kept in the definition; the guest sees it; again is no change', async () => {
    expect(rbd).toBeInstanceOf(RbdVolumeBackend);
    await rbd.create(onRbd, 1);
    await compute.attachVolume(instance, onRbd.volumeId, rbd.diskSource(onRbd));
    await compute.attachVolume(instance, onRbd.volumeId, rbd.diskSource(onRbd));
    expect(await virsh('domblklist', domain)).toMatch(new RegExp(`^\\s*vdc\\s+${pool}/vol-${onRbd.volumeId}$`, 'm'));
    expect(await inactiveTarget(onRbd)).toBe('vdc');
    await guest.until(domain, has(onRbd, SECTORS_PER_GIB), 'the RBD volume');
    // QEMU holds the image open: Ceph refuses to delete it.
    await expect(rbd.remove(onRbd)).rejects.toMatchObject({ code: 'volume_in_use' });
  });

  it('grows the RBD volume under the running guest', async () => {
    await rbd.resize(onRbd, 2);
    await compute.resizeVolume(instance, onRbd.volumeId, 2 * GIB);
    expect(await capacity('vdc')).toBe(2 * GIB);
    await guest.until(domain, has(onRbd, 2 * SECTORS_PER_GIB), 'the grown RBD volume');
    await expect(compute.resizeVolume(instance, onRbd.volumeId, GIB)).rejects.toMatchObject({ code: 'invalid_size' });
  });

  it('hot-plugs and grows a local volume beside it', async () => {
    await local.create(onPool, 1);
    await compute.attachVolume(instance, onPool.volumeId, local.diskSource(onPool));
    expect(await virsh('domblklist', domain)).toMatch(new RegExp(`^\\s*vdd\\s+vol-${onPool.volumeId}$`, 'm'));
    await guest.until(domain, (disks) => has(onRbd)(disks) && has(onPool, SECTORS_PER_GIB)(disks), 'both volumes');
    await local.resize(onPool, 3);
    await compute.resizeVolume(instance, onPool.volumeId, 3 * GIB);
    expect(await capacity('vdd')).toBe(3 * GIB);
    await guest.until(domain, has(onPool, 3 * SECTORS_PER_GIB), 'the grown local volume');
  });

  it('unplugs a volume from the running guest and its definition; again is no change; Ceph then deletes it', async () => {
    await compute.detachVolume(instance, onRbd.volumeId);
    await compute.detachVolume(instance, onRbd.volumeId);
    expect(await virsh('domblklist', domain)).not.toContain(onRbd.volumeId);
    expect(await inactiveTarget(onRbd)).toBeUndefined();
    await guest.until(domain, (disks) => !has(onRbd)(disks) && has(onPool)(disks), 'the RBD volume gone');
    await rbd.remove(onRbd);
    expect(await rbd.exists(onRbd)).toBe(false);
  });

  it('defines the cephx key as a private libvirt secret on the host, which QEMU opens the image with', async () => {
    const key = execFileSync('ceph-authtool', ['--gen-print-key'], { encoding: 'utf8' }).trim();
    const withKey = loadConfig(
      testEnv({
        DATA_DIR: dir,
        ...libvirtCompute({
          VOLUME_BACKEND: 'rbd',
          CEPH_MON_HOST: cephMonHost(),
          VOLUMES_RBD_POOL: pool,
          CEPH_CLIENT_NAME: secretClient,
          CEPH_CLIENT_KEY: key,
        }),
      }),
    );
    const cephx = new RbdVolumeBackend(withKey.volumes, identity, new Virsh(), 30_000);
    await cephx.prepareHost(LIBVIRT_URI);
    await cephx.prepareHost(LIBVIRT_URI);
    const uuid = cephSecretUuid(secretClient, withKey.volumes.cephMonitors);
    expect(await virsh('secret-list')).toContain(uuid);
    await expect(virsh('secret-get-value', uuid)).rejects.toThrow(/private/);
    expect(cephx.diskSource(onRbd)).toMatchObject({ auth: { username: secretClient, secretUuid: uuid } });
    // The cluster runs without cephx, and a client that offers it still gets in: the secret is what libvirt looks up.
    await cephx.create(withSecret, 1);
    await compute.attachVolume(instance, withSecret.volumeId, cephx.diskSource(withSecret));
    expect(await virsh('dumpxml', domain)).toContain(`<secret type='ceph' uuid='${uuid}'/>`);
    await guest.until(domain, has(withSecret, SECTORS_PER_GIB), 'the volume opened with the key');
    await compute.detachVolume(instance, withSecret.volumeId);
    await cephx.remove(withSecret);
  });

  it('attaches to a machine that is off for its next start, keeps it through a rebuild; the volume outlives the machine', async () => {
    await compute.detachVolume(instance, onPool.volumeId);
    await virsh('destroy', domain);
    await compute.attachVolume(instance, onPool.volumeId, local.diskSource(onPool));
    expect(await virsh('domstate', domain)).toBe('shut off');
    expect(await inactiveTarget(onPool)).toBe('vdc');
    let boots = guest.boots(domain);
    await virsh('start', domain);
    await guest.until(domain, has(onPool, 3 * SECTORS_PER_GIB), 'the volume after the start', boots);
    // A rebuild defines the domain again from the template: the volume stays in it.
    await virsh('vol-create-as', '--pool', 'default', '--name', image, '--capacity', '1M', '--format', 'raw');
    const boot = {
      imageId: image.slice('img-'.length),
      imageFormat: 'raw' as const,
      diskGb: 1,
      seed: { instanceId: 'i', hostname: 'h', sshKeys: [] },
    };
    boots = guest.boots(domain);
    await compute.rebuildMachine(instance, boot, null);
    expect(await inactiveTarget(onPool)).toBe('vdc');
    await guest.until(domain, has(onPool, 3 * SECTORS_PER_GIB), 'the volume after the rebuild', boots);
    await compute.destroyMachine(instance);
    expect(await local.sizeOf(onPool)).toBe(3 * GIB);
  }, 180_000);
});
