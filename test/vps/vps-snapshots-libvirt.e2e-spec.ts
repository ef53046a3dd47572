import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { createAccount, TestAccount } from '../factories/accounts';
import { uploadSshKey } from '../factories/images';
import { addTestImage, BOOT_MS, makeKeyPair, removeGuest, sshAsRoot, untilAgentAnswers, untilSshUp } from '../support/guest';
import { guestCompute } from '../support/hosts';
import { libvirtTestsEnabled, virsh } from '../support/libvirt';
import { runCliIn } from '../support/run-cli-in-app';
import { startTestApp, TestApp } from '../support/test-app';
import { waitFor } from '../support/wait-for';

/**
 * A snapshot of a running VPS on the local qemu:///system, with the Debian test image
 * (cloud-init, qemu-guest-agent): a file written before the snapshot is on the disk rebuilt from
 * it, one written after is not; stopped, the copy is flattened by libvirt. One guest for the whole file. PostgreSQL only, like the other
 * libvirt suites.
 */
const enabled = libvirtTestsEnabled();

const POOL = 'default';
const compute = guestCompute('25000-25999');

(enabled ? describe : describe.skip)('Snapshots of a running VPS (libvirt, real cloud image)', () => {
  let t: TestApp;
  let owner: TestAccount;
  let dir: string;
  let imageSlug: string;
  let vps: { id: string; instance: { ssh: { host: string; port: number } } };
  let snapshot: { id: string; slug: string };
  let cold: string | undefined;
  const key = () => join(dir, 'key');

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'snapshot-keys-'));
    makeKeyPair(key(), 'snapshot-test');
    t = await startTestApp(compute);
    owner = await createAccount(t);
    await uploadSshKey(t, owner.bearer, readFileSync(`${key()}.pub`, 'utf8'));
    imageSlug = `debian-12-snap-${randomUUID().slice(0, 8)}`;
    const added = await addTestImage(t.app, imageSlug);
    expect(added.lines[0]).toMatchObject({ slug: imageSlug, status: 'available' });
  }, BOOT_MS);

  afterAll(async () => {
    if (vps) await removeGuest(t.app, vps.id);
    if (snapshot) {
      await request(t.http).delete(`/api/images/${snapshot.id}`).set('Authorization', owner.bearer);
      await virsh('vol-delete', '--pool', POOL, `img-${snapshot.id}`).catch(() => undefined);
    }
    if (cold) await virsh('vol-delete', '--pool', POOL, `img-${cold}`).catch(() => undefined);
    if (imageSlug) await runCliIn(t.app, ['image:remove', '--slug', imageSlug]);
    await t?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Tried at most once a second until it runs (the guest boots; cloud-init may restart sshd once). */
  const sshWhenUp = (command: string) => untilSshUp(() => sshAsRoot(vps.instance.ssh, key(), command));

  const settle = (actionId: string) =>
    waitFor(
      async () => (await t.get(`/api/services/${vps.id}/instance/actions/${actionId}`, owner.bearer).expect(200)).body,
      (action) => action.status !== 'running',
      BOOT_MS,
    );

  it(
    'snapshots the running VPS live: the image is a standalone volume of the pool, its filesystems frozen by the guest agent',
    async () => {
      const res = await runCliIn(
        t.app,
        ['service:provision', '--email', owner.email, '--type', 'vps', '--product', 'vps-xs'].concat(['--image', imageSlug]),
      );
      expect(res.stderr).toBe('');
      [vps] = res.lines;
      expect((await sshWhenUp('echo before > /root/first && sync && cat /root/first')).stdout).toBe('before');
      // The agent starts with the guest; a snapshot taken before it answers is crash-consistent, so wait for it.
      await untilAgentAnswers(`svc-${vps.id}`);

      const started = await request(t.http)
        .post(`/api/services/${vps.id}/instance/snapshots`)
        .set('Authorization', owner.bearer)
        .send({ name: 'with first file' })
        .expect(202);
      const done = await settle(started.body.id);
      expect(done).toMatchObject({ type: 'snapshot', status: 'succeeded', error: null, snapshot: { consistency: 'filesystem' } });
      snapshot = (await t.get(`/api/images/${done.snapshot.imageId}`, owner.bearer).expect(200)).body;
      expect(snapshot).toMatchObject({ type: 'snapshot', status: 'available', createdFrom: { serviceId: vps.id }, minDiskGb: 25 });
      const volume = await virsh('vol-dumpxml', '--pool', POOL, `img-${snapshot.id}`);
      expect(volume).not.toContain('<backingStore>');
      expect(volume).toMatch(/<capacity unit='bytes'>26843545600<\/capacity>/);
      expect((await t.get(`/api/images/${snapshot.id}`, owner.bearer)).body.sizeBytes).toBe(
        Number(/<allocation unit='bytes'>(\d+)</.exec(volume)![1]),
      );
      // The guest runs on, its filesystems thawed: it writes again.
      expect((await sshWhenUp('echo after > /root/second && sync && cat /root/second')).stdout).toBe('after');
      expect((await t.get(`/api/services/${vps.id}`, owner.bearer)).body.instance.powerState).toBe('running');
    },
    BOOT_MS * 2,
  );

  it(
    'rebuilds from the snapshot: the file written before it is there, the one written after is not',
    async () => {
      const rebuild = await request(t.http)
        .post(`/api/services/${vps.id}/instance/rebuild`)
        .set('Authorization', owner.bearer)
        .send({ image: snapshot.slug })
        .expect(202);
      expect(await settle(rebuild.body.id)).toMatchObject({ status: 'succeeded', error: null });
      const after = await sshWhenUp(
        'cat /var/lib/cloud/data/instance-id; cat /root/first; test -e /root/second && echo second-there || echo second-gone',
      );
      expect(after.stdout.split('\n')).toEqual([`iid-${rebuild.body.id}`, 'before', 'second-gone']);
      expect(await virsh('vol-dumpxml', '--pool', POOL, `svc-${vps.id}-root.qcow2`)).toContain(`img-${snapshot.id}`);
    },
    BOOT_MS * 2,
  );

  it(
    'snapshots the VPS stopped: a flat copy of a disk that is itself built on a snapshot',
    async () => {
      const stop = await request(t.http).post(`/api/services/${vps.id}/instance/stop`).set('Authorization', owner.bearer).expect(202);
      expect(await settle(stop.body.id)).toMatchObject({ status: 'succeeded' });
      const started = await request(t.http)
        .post(`/api/services/${vps.id}/instance/snapshots`)
        .set('Authorization', owner.bearer)
        .send({ name: 'stopped' })
        .expect(202);
      const done = await settle(started.body.id);
      expect(done).toMatchObject({ status: 'succeeded', snapshot: { consistency: 'filesystem' } });
      cold = done.snapshot.imageId;
      const volume = await virsh('vol-dumpxml', '--pool', POOL, `img-${cold}`);
      expect(volume).not.toContain('<backingStore>');
      expect((await t.get(`/api/images/${cold}`, owner.bearer).expect(200)).body).toMatchObject({ status: 'available', type: 'snapshot' });
      expect((await t.get(`/api/services/${vps.id}`, owner.bearer)).body.instance.powerState).toBe('stopped');
      await request(t.http).delete(`/api/images/${cold}`).set('Authorization', owner.bearer).expect(204);
      expect(await virsh('vol-list', POOL)).not.toContain(`img-${cold}`);
    },
    BOOT_MS,
  );

  it('keeps the snapshot while the VPS is built on it, and deletes it with its volume once the VPS is terminated', async () => {
    const refused = await request(t.http).delete(`/api/images/${snapshot.id}`).set('Authorization', owner.bearer).expect(409);
    expect(refused.body.code).toBe('invalid_state');
    expect((await runCliIn(t.app, ['service:set-status', '--id', vps.id, '--status', 'terminated'])).code).toBe(0);
    expect(await virsh('vol-list', POOL)).toContain(`img-${snapshot.id}`);
    await request(t.http).delete(`/api/images/${snapshot.id}`).set('Authorization', owner.bearer).expect(204);
    expect(await virsh('vol-list', POOL)).not.toContain(`img-${snapshot.id}`);
  });
});
