import request from 'supertest';
import { BOOT_MS, untilAgentAnswers } from '../support/guest';
import { GuestSuite } from '../support/guest-suite';
import { guestCompute } from '../support/hosts';
import { guestSuiteInThisPass, virsh } from '../support/libvirt';
import { runCliIn } from '../support/run-cli-in-app';

/**
 * A snapshot of a running VPS on the local qemu:///system, with the Debian test image
 * (cloud-init, qemu-guest-agent): a file written before the snapshot is on the disk rebuilt from
 * it, one written after is not; stopped, the copy is flattened by libvirt. One guest for the whole file. PostgreSQL only, like the other
 * libvirt suites.
 */
const enabled = guestSuiteInThisPass();

const POOL = 'default';
const compute = guestCompute('25000-25999');

(enabled ? describe : describe.skip)('Snapshots of a running VPS (libvirt, real cloud image)', () => {
  const g = new GuestSuite('snap');
  let snapshot: { id: string; slug: string };
  let cold: string | undefined;

  beforeAll(() => g.start(compute), BOOT_MS);

  afterAll(async () => {
    await g.removeVps();
    if (snapshot) {
      await request(g.t.http).delete(`/api/images/${snapshot.id}`).set('Authorization', g.owner.bearer);
      await virsh('vol-delete', '--pool', POOL, `img-${snapshot.id}`).catch(() => undefined);
    }
    if (cold) await virsh('vol-delete', '--pool', POOL, `img-${cold}`).catch(() => undefined);
    await g.stop();
  });

  it(
    'snapshots the running VPS live: the image is a standalone volume of the pool, its filesystems frozen by the guest agent',
    async () => {
      await g.provision();
      expect((await g.sshWhenUp('echo before > /root/first && sync && cat /root/first')).stdout).toBe('before');
      // The agent starts with the guest; a snapshot taken before it answers is crash-consistent, so wait for it.
      await untilAgentAnswers(`svc-${g.vps.id}`);

      const started = await request(g.t.http)
        .post(`/api/services/${g.vps.id}/instance/snapshots`)
        .set('Authorization', g.owner.bearer)
        .send({ name: 'with first file' })
        .expect(202);
      const done = await g.settle(started.body.id);
      expect(done).toMatchObject({ type: 'snapshot', status: 'succeeded', error: null, snapshot: { consistency: 'filesystem' } });
      snapshot = (await g.t.get(`/api/images/${done.snapshot.imageId}`, g.owner.bearer).expect(200)).body;
      expect(snapshot).toMatchObject({ type: 'snapshot', status: 'available', createdFrom: { serviceId: g.vps.id }, minDiskGb: 25 });
      const volume = await virsh('vol-dumpxml', '--pool', POOL, `img-${snapshot.id}`);
      expect(volume).not.toContain('<backingStore>');
      expect(volume).toMatch(/<capacity unit='bytes'>26843545600<\/capacity>/);
      expect((await g.t.get(`/api/images/${snapshot.id}`, g.owner.bearer)).body.sizeBytes).toBe(
        Number(/<allocation unit='bytes'>(\d+)</.exec(volume)![1]),
      );
      // The guest runs on, its filesystems thawed: it writes again.
      expect((await g.sshWhenUp('echo after > /root/second && sync && cat /root/second')).stdout).toBe('after');
      expect((await g.t.get(`/api/services/${g.vps.id}`, g.owner.bearer)).body.instance.powerState).toBe('running');
    },
    BOOT_MS * 2,
  );

  it(
    'rebuilds from the snapshot: the file written before it is there, the one written after is not',
    async () => {
      const rebuild = await request(g.t.http)
        .post(`/api/services/${g.vps.id}/instance/rebuild`)
        .set('Authorization', g.owner.bearer)
        .send({ image: snapshot.slug })
        .expect(202);
      expect(await g.settle(rebuild.body.id)).toMatchObject({ status: 'succeeded', error: null });
      const after = await g.sshWhenUp(
        'cat /var/lib/cloud/data/instance-id; cat /root/first; test -e /root/second && echo second-there || echo second-gone',
      );
      expect(after.stdout.split('\n')).toEqual([`iid-${rebuild.body.id}`, 'before', 'second-gone']);
      expect(await virsh('vol-dumpxml', '--pool', POOL, `svc-${g.vps.id}-root.qcow2`)).toContain(`img-${snapshot.id}`);
    },
    BOOT_MS * 2,
  );

  it(
    'snapshots the VPS stopped: a flat copy of a disk that is itself built on a snapshot',
    async () => {
      const stop = await request(g.t.http).post(`/api/services/${g.vps.id}/instance/stop`).set('Authorization', g.owner.bearer).expect(202);
      expect(await g.settle(stop.body.id)).toMatchObject({ status: 'succeeded' });
      const started = await request(g.t.http)
        .post(`/api/services/${g.vps.id}/instance/snapshots`)
        .set('Authorization', g.owner.bearer)
        .send({ name: 'stopped' })
        .expect(202);
      const done = await g.settle(started.body.id);
      expect(done).toMatchObject({ status: 'succeeded', snapshot: { consistency: 'filesystem' } });
      cold = done.snapshot.imageId;
      const volume = await virsh('vol-dumpxml', '--pool', POOL, `img-${cold}`);
      expect(volume).not.toContain('<backingStore>');
      expect((await g.t.get(`/api/images/${cold}`, g.owner.bearer).expect(200)).body).toMatchObject({
        status: 'available',
        type: 'snapshot',
      });
      expect((await g.t.get(`/api/services/${g.vps.id}`, g.owner.bearer)).body.instance.powerState).toBe('stopped');
      await request(g.t.http).delete(`/api/images/${cold}`).set('Authorization', g.owner.bearer).expect(204);
      expect(await virsh('vol-list', POOL)).not.toContain(`img-${cold}`);
    },
    BOOT_MS,
  );

  it('keeps the snapshot while the VPS is built on it, and deletes it with its volume once the VPS is terminated', async () => {
    const refused = await request(g.t.http).delete(`/api/images/${snapshot.id}`).set('Authorization', g.owner.bearer).expect(409);
    expect(refused.body.code).toBe('invalid_state');
    expect((await runCliIn(g.t.app, ['service:set-status', '--id', g.vps.id, '--status', 'terminated'])).code).toBe(0);
    expect(await virsh('vol-list', POOL)).toContain(`img-${snapshot.id}`);
    await request(g.t.http).delete(`/api/images/${snapshot.id}`).set('Authorization', g.owner.bearer).expect(204);
    expect(await virsh('vol-list', POOL)).not.toContain(`img-${snapshot.id}`);
  });
});
