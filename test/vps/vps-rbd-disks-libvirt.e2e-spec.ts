import { randomUUID } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import request from 'supertest';
import { BackupRunner } from '../../libs/vps/src/backups/backup-runner';
import { runCliIn } from '../support/run-cli-in-app';
import { cephMonHost, cephTestsEnabled, cephTool } from '../support/ceph';
import { BOOT_MS, untilAgentAnswers } from '../support/guest';
import { rescueTestImageFile, testImageFile } from '../support/test-images';
import { GuestSuite } from '../support/guest-suite';
import { guestCompute } from '../support/hosts';
import { guestSuiteInThisPass, virsh } from '../support/libvirt';

/**
 * A VPS whose disks are RBD images (DISK_BACKEND=rbd) on the one-node cluster of
 * scripts/ensure-ceph.sh, run by the local qemu:///system with the Debian test image: the image
 * goes to Ceph at image:add, the VPS boots from its clone and reads its seed from Ceph, keeps what
 * it wrote across a power cycle, is snapshotted live into a standalone image it is then rebuilt
 * from (a new clone: what it wrote after the snapshot is gone, the disk still on Ceph), is backed
 * up (qcow2, as any backup) and restored, is rescued (the rescue system's disk a clone on Ceph
 * too), and leaves nothing in the cluster when it and its image are removed. A pool of the
 * suite's own, deleted at the end. Six boots: a rebuild from the base image would take the same
 * path as the one from the snapshot (a clone of `img-<id>@base`), so there is none.
 */
const enabled = guestSuiteInThisPass() && cephTestsEnabled();
const GIB = 1024 ** 3;

(enabled ? describe : describe.skip)('VPS disks on Ceph RBD (libvirt, real cloud image)', () => {
  const pool = `vps-test-${randomUUID().slice(0, 8)}`;
  const g = new GuestSuite('rbd-disks');
  const rbd = (...args: string[]) => cephTool('rbd', ...args);
  const images = async () => JSON.parse(await rbd('ls', '-p', pool, '--format', 'json')) as string[];
  const noVolumes = (id: string) => [`svc-${id}-root.qcow2`, `svc-${id}-seed.iso`];
  /** The image's RBD image (`img-<id>`) and the snapshot made of the VPS. */
  let image: string;
  let snapshot: { id: string; slug: string; sizeBytes: number };
  /** The service's name, its guest's hostname. */
  let name: string;
  const diskOf = (xml: string, dev: string): string | undefined =>
    [...xml.matchAll(/<disk [\s\S]*?<\/disk>/g)].map((m) => m[0]).find((disk) => disk.includes(`<target dev='${dev}'`));

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
      [image] = await images();
      expect(image).toMatch(/^img-[0-9a-f-]{36}$/);
      expect(JSON.parse(await rbd('info', `${pool}/${image}@base`, '--format', 'json'))).toMatchObject({ protected: 'true' });

      await g.provision();
      const id = g.vps.id;
      // The seed on Ceph was read: the hostname is the service's name.
      ({ name } = (await g.t.get(`/api/services/${id}`, g.owner.bearer).expect(200)).body);
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
    'snapshots it live into a standalone image of the pool, its filesystems frozen by the guest agent, and rebuilds from it',
    async () => {
      const id = g.vps.id;
      expect((await g.sshWhenUp('echo before > /root/first && sync && cat /root/first')).stdout).toBe('before');
      await untilAgentAnswers(`svc-${id}`);
      const started = await request(g.t.http)
        .post(`/api/services/${id}/instance/snapshots`)
        .set('Authorization', g.owner.bearer)
        .send({ name: 'on ceph' })
        .expect(202);
      const done = await g.settle(started.body.id);
      expect(done).toMatchObject({ type: 'snapshot', status: 'succeeded', error: null, snapshot: { consistency: 'filesystem' } });
      snapshot = (await g.t.get(`/api/images/${done.snapshot.imageId}`, g.owner.bearer).expect(200)).body;
      expect(snapshot).toMatchObject({ type: 'snapshot', status: 'available', createdFrom: { serviceId: id }, minDiskGb: 25 });
      // Standalone (no parent: flattened), complete (@base protected), and the VPS's disk keeps no snapshot of it.
      const info = JSON.parse(await rbd('info', `${pool}/img-${snapshot.id}`, '--format', 'json'));
      expect(info).toMatchObject({ size: 25 * GIB });
      expect(info.parent).toBeUndefined();
      expect(JSON.parse(await rbd('info', `${pool}/img-${snapshot.id}@base`, '--format', 'json'))).toMatchObject({ protected: 'true' });
      expect(JSON.parse(await rbd('snap', 'ls', `${pool}/svc-${id}-root`, '--format', 'json'))).toEqual([]);
      const du = JSON.parse(await rbd('du', `${pool}/img-${snapshot.id}`, '--format', 'json'));
      // The data it holds (the rows of the image and its @base), not its size.
      const used = (du.images as { used_size: number }[]).reduce((sum, row) => sum + row.used_size, 0);
      expect(snapshot.sizeBytes).toBe(used);
      expect(used).toBeGreaterThan(100 * 1024 ** 2);
      expect(await virsh('vol-list', '--pool', 'default')).not.toContain(`img-${snapshot.id}`);
      // The guest runs on, thawed.
      expect((await g.sshWhenUp('echo after > /root/second && sync && cat /root/second')).stdout).toBe('after');

      const rebuild = await request(g.t.http)
        .post(`/api/services/${id}/instance/rebuild`)
        .set('Authorization', g.owner.bearer)
        .send({ image: snapshot.slug })
        .expect(202);
      expect(await g.settle(rebuild.body.id)).toMatchObject({ type: 'rebuild', status: 'succeeded', error: null });
      const after = await g.sshWhenUp('cat /root/first; test -e /root/second && echo second-there || echo second-gone');
      expect(after.stdout.split('\n')).toEqual(['before', 'second-gone']);
      expect(JSON.parse(await rbd('info', `${pool}/svc-${id}-root`, '--format', 'json'))).toMatchObject({
        parent: expect.objectContaining({ pool, image: `img-${snapshot.id}`, snapshot: 'base' }),
      });
      expect(await virsh('dumpxml', `svc-${id}`)).toContain(`<source protocol='rbd' name='${pool}/svc-${id}-root'`);
    },
    BOOT_MS * 3,
  );

  it(
    'backs it up live from an RBD snapshot, as qcow2 like any backup, and restores it: what was written after is gone',
    async () => {
      const id = g.vps.id;
      expect((await g.sshWhenUp('echo backed-up > /root/third && sync && cat /root/third')).stdout).toBe('backed-up');
      await untilAgentAnswers(`svc-${id}`);
      const made = (await g.t.app.get(BackupRunner).run(id, 'operator')) as { backupId: string; status: string; error?: string };
      expect(made).toMatchObject({ status: 'available' });
      const [backup] = (await g.t.get(`/api/services/${id}/instance/backups`, g.owner.bearer).expect(200)).body.data;
      expect(backup).toMatchObject({ id: made.backupId, status: 'available', consistency: 'filesystem' });
      // Released: no snapshot on the VPS's disk, no copy on the API host.
      expect(JSON.parse(await rbd('snap', 'ls', `${pool}/svc-${id}-root`, '--format', 'json'))).toEqual([]);
      expect(readdirSync(tmpdir()).filter((name) => name.startsWith('rbd-backup-') || name.startsWith('rbd-restore-'))).toEqual([]);
      expect((await g.sshWhenUp('echo later > /root/fourth && sync && cat /root/fourth')).stdout).toBe('later');

      const restore = await request(g.t.http)
        .post(`/api/services/${id}/instance/backups/${made.backupId}/restore`)
        .set('Authorization', g.owner.bearer)
        .set('Idempotency-Key', randomUUID())
        .expect(202);
      expect(await g.settle(restore.body.id)).toMatchObject({ type: 'restore', status: 'succeeded', error: null });
      const after = await g.sshWhenUp('cat /root/first /root/third; test -e /root/fourth && echo fourth-there || echo fourth-gone');
      expect(after.stdout.split('\n')).toEqual(['before', 'backed-up', 'fourth-gone']);
      // The restored root is an image of its own on Ceph, of the disk's size.
      expect(JSON.parse(await rbd('info', `${pool}/svc-${id}-root`, '--format', 'json'))).toMatchObject({ size: 25 * GIB });
      expect(await virsh('dumpxml', `svc-${id}`)).toContain(`<source protocol='rbd' name='${pool}/svc-${id}-root'`);
    },
    BOOT_MS * 3,
  );

  it(
    "rescues it: the rescue system boots from its own clone on Ceph with the VPS's disk as vdb; unrescued, the rescue disks are gone",
    async () => {
      const id = g.vps.id;
      const slug = `rescue-${randomUUID().slice(0, 8)}`;
      const file = rescueTestImageFile(testImageFile());
      const added = await runCliIn(g.t.app, ['image:add', '--slug', slug, '--name', slug, '--file', file, '--rescue']);
      expect(added.lines[0]).toMatchObject({ slug, status: 'available' });
      const rescue = await request(g.t.http)
        .post(`/api/services/${id}/instance/rescue`)
        .set('Authorization', g.owner.bearer)
        .send({})
        .expect(202);
      expect(await g.settle(rescue.body.id)).toMatchObject({ type: 'rescue', status: 'succeeded', error: null });
      const xml = await virsh('dumpxml', `svc-${id}`);
      expect(diskOf(xml, 'vda')).toContain(`name='${pool}/svc-${id}-rescue'`);
      expect(diskOf(xml, 'vdb')).toContain(`name='${pool}/svc-${id}-root'`);
      expect(diskOf(xml, 'hdc')).toContain(`name='${pool}/svc-${id}-rescue-seed'`);
      expect((await g.sshWhenUp('cloud-init status --wait > /dev/null; hostname')).stdout).toBe('rescue');
      expect((await g.ssh('mount /dev/vdb1 /mnt && cat /mnt/root/third && umount /mnt')).stdout).toBe('backed-up');

      const unrescue = await request(g.t.http)
        .post(`/api/services/${id}/instance/unrescue`)
        .set('Authorization', g.owner.bearer)
        .expect(202);
      expect(await g.settle(unrescue.body.id)).toMatchObject({ type: 'unrescue', status: 'succeeded', error: null });
      expect(diskOf(await virsh('dumpxml', `svc-${id}`), 'vdb')).toBeUndefined();
      expect((await g.sshWhenUp('hostname; cat /root/third')).stdout).toBe(`${name}\nbacked-up`);
      expect((await images()).filter((made) => made.includes('-rescue'))).toEqual([]);
      expect((await runCliIn(g.t.app, ['image:remove', '--slug', slug])).stderr).toBe('');
      expect(await images()).toEqual([image, `img-${snapshot.id}`, `svc-${id}-root`, `svc-${id}-seed`].sort());
    },
    BOOT_MS * 4,
  );

  it(
    'leaves nothing on Ceph once the VPS is terminated, its snapshot deleted and its image removed',
    async () => {
      const id = g.vps.id;
      await g.removeVps(noVolumes);
      expect(await images()).toEqual([image, `img-${snapshot.id}`].sort());
      // The snapshot outlives its VPS until its owner deletes it (the API still records the VPS as built on it until then).
      await request(g.t.http).delete(`/api/images/${snapshot.id}`).set('Authorization', g.owner.bearer).expect(204);
      expect(await images()).toEqual([image]);
      const removed = await runCliIn(g.t.app, ['image:remove', '--slug', g.imageSlug]);
      expect(removed.stderr).toBe('');
      expect(await images()).toEqual([]);
      expect(await virsh('list', '--all', '--name')).not.toContain(`svc-${id}`);
    },
    BOOT_MS,
  );
});
