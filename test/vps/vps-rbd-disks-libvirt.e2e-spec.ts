import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { runCliIn } from '../support/run-cli-in-app';
import { cephMonHost, cephTestsEnabled, cephTool } from '../support/ceph';
import { BOOT_MS } from '../support/guest';
import { GuestSuite } from '../support/guest-suite';
import { guestCompute } from '../support/hosts';
import { guestSuiteInThisPass, virsh } from '../support/libvirt';

/**
 * A VPS whose disks are RBD images (DISK_BACKEND=rbd) on the one-node cluster of
 * scripts/ensure-ceph.sh, run by the local qemu:///system with the Debian test image: the image
 * goes to Ceph at image:add, the VPS boots from its clone and reads its seed from Ceph, keeps what
 * it wrote across a power cycle, is rebuilt on a new clone, refuses what disks on Ceph cannot do yet, and leaves nothing in
 * the cluster when it and its image are removed. A pool of the suite's own, deleted at the end.
 */
const enabled = guestSuiteInThisPass() && cephTestsEnabled();
const GIB = 1024 ** 3;

(enabled ? describe : describe.skip)('VPS disks on Ceph RBD (libvirt, real cloud image)', () => {
  const pool = `vps-test-${randomUUID().slice(0, 8)}`;
  const g = new GuestSuite('rbd-disks');
  const rbd = (...args: string[]) => cephTool('rbd', ...args);
  const images = async () => JSON.parse(await rbd('ls', '-p', pool, '--format', 'json')) as string[];
  const noVolumes = (id: string) => [`svc-${id}-root.qcow2`, `svc-${id}-seed.iso`];

  beforeAll(async () => {
    await g.start({ ...guestCompute('28000-28099'), DISK_BACKEND: 'rbd', CEPH_MON_HOST: cephMonHost(), DISKS_RBD_POOL: pool });
  }, BOOT_MS);

  afterAll(async () => {
    await g.stop(noVolumes);
    await cephTool('ceph', 'osd', 'pool', 'rm', pool, pool, '--yes-i-really-really-mean-it').catch(() => undefined);
  });

  it(
    'imports the image at image:add, boots the VPS from its clone with the seed on Ceph, and keeps what it wrote across a power cycle',
    async () => {
      const [image] = await images();
      expect(image).toMatch(/^img-[0-9a-f-]{36}$/);
      expect(JSON.parse(await rbd('info', `${pool}/${image}@base`, '--format', 'json'))).toMatchObject({ protected: 'true' });

      await g.provision();
      const id = g.vps.id;
      // The seed on Ceph was read: the hostname is the service's name.
      const { name } = (await g.t.get(`/api/services/${id}`, g.owner.bearer).expect(200)).body;
      expect((await g.sshWhenUp('hostname')).stdout).toBe(name);
      expect((await images()).sort()).toEqual([image, `svc-${id}-root`, `svc-${id}-seed`].sort());
      expect(JSON.parse(await rbd('info', `${pool}/svc-${id}-root`, '--format', 'json'))).toMatchObject({
        size: 25 * GIB,
        parent: expect.objectContaining({ pool, image, snapshot: 'base' }),
      });
      const xml = await virsh('dumpxml', `svc-${id}`);
      expect(xml).toContain(`<source protocol='rbd' name='${pool}/svc-${id}-root'`);
      expect(xml).toContain(`<source protocol='rbd' name='${pool}/svc-${id}-seed'`);
      expect(await virsh('vol-list', '--pool', 'default')).not.toContain(`svc-${id}-`);
      // The guest's root filesystem grew to the disk's 25 GiB: it reads and writes the clone.
      expect(Number((await g.sshWhenUp('lsblk -bdno SIZE /dev/vda')).stdout)).toBe(25 * GIB);
      expect((await g.sshWhenUp('echo kept > /root/kept && sync && cat /root/kept')).stdout).toBe('kept');

      for (const type of ['stop', 'start']) {
        const res = await request(g.t.http).post(`/api/services/${id}/instance/${type}`).set('Authorization', g.owner.bearer).expect(202);
        expect(await g.settle(res.body.id)).toMatchObject({ type, status: 'succeeded' });
      }
      expect((await g.sshWhenUp('cat /root/kept')).stdout).toBe('kept');
    },
    BOOT_MS * 3,
  );

  it(
    'rebuilds it on a new clone of the image: what it wrote is gone, and the disk is still on Ceph',
    async () => {
      const id = g.vps.id;
      const rebuild = await request(g.t.http)
        .post(`/api/services/${id}/instance/rebuild`)
        .set('Authorization', g.owner.bearer)
        .send({ image: g.imageSlug })
        .expect(202);
      expect(await g.settle(rebuild.body.id)).toMatchObject({ type: 'rebuild', status: 'succeeded', error: null });
      expect((await g.sshWhenUp('test -e /root/kept && echo still-there || echo gone')).stdout).toBe('gone');
      expect(JSON.parse(await rbd('info', `${pool}/svc-${id}-root`, '--format', 'json'))).toMatchObject({ size: 25 * GIB });
      expect(await virsh('dumpxml', `svc-${id}`)).toContain(`<source protocol='rbd' name='${pool}/svc-${id}-root'`);
    },
    BOOT_MS * 2,
  );

  it('refuses a snapshot, which disks on Ceph cannot take yet, and changes nothing', async () => {
    const started = await request(g.t.http)
      .post(`/api/services/${g.vps.id}/instance/snapshots`)
      .set('Authorization', g.owner.bearer)
      .send({ name: 'not yet' })
      .expect(202);
    expect(await g.settle(started.body.id)).toMatchObject({
      type: 'snapshot',
      status: 'failed',
      error: { message: expect.stringMatching(/not available yet for servers whose disks are on Ceph/) },
    });
    expect(await virsh('domstate', `svc-${g.vps.id}`)).toBe('running');
    expect(await images()).toHaveLength(3);
  });

  it(
    'leaves nothing on Ceph once the VPS is terminated and its image removed',
    async () => {
      const id = g.vps.id;
      const [image] = (await images()).filter((name) => name.startsWith('img-'));
      await g.removeVps(noVolumes);
      expect(await images()).toEqual([image]);
      const removed = await runCliIn(g.t.app, ['image:remove', '--slug', g.imageSlug]);
      expect(removed.stderr).toBe('');
      expect(await images()).toEqual([]);
      expect(await virsh('list', '--all', '--name')).not.toContain(`svc-${id}`);
    },
    BOOT_MS,
  );
});
