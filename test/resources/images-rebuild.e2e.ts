import { createHash, randomUUID } from 'node:crypto';
import request from 'supertest';
import { createAccount, TestAccount } from '../factories/accounts';
import { createImage, uploadSshKey } from '../factories/images';
import { createService } from '../factories/services';
import { ImagesRepository } from '../../libs/vps/src/images/images.repository';
import { sharedTestApp, TestApp } from '../support/test-app';
import { waitFor } from '../support/wait-for';

describe('Images and rebuilding a VPS (simulator)', () => {
  let t: TestApp;
  let owner: TestAccount;
  let stranger: TestAccount;
  let image: { id: string; slug: string };
  let huge: { id: string; slug: string };
  beforeAll(async () => {
    t = await sharedTestApp();
    owner = await createAccount(t);
    stranger = await createAccount(t);
    image = await createImage(t, { gib: 2 });
    // vps-xs has a 25 GB disk.
    huge = await createImage(t, { gib: 2, minDiskGb: 30 });
  });

  const rebuild = (id: string, body: object, bearer = owner.bearer) =>
    request(t.http).post(`/api/services/${id}/instance/rebuild`).set('Authorization', bearer).send(body);
  const instanceOf = async (id: string) => (await t.get(`/api/services/${id}`, owner.bearer).expect(200)).body.instance;
  const actionsOf = async (id: string) => (await t.get(`/api/services/${id}/instance/actions`, owner.bearer).expect(200)).body.data;
  const imageOf = async (id: string) => (await t.db.query('SELECT image_id FROM vps_instances WHERE service_id = $1', [id]))[0].image_id;

  it('lists the available images, paginated, to any account, and gets one', async () => {
    const list = await t.get('/api/images?pageSize=100', stranger.bearer).expect(200);
    expect(list.body).toMatchObject({ page: 1, pageSize: 100 });
    expect(list.body.data).toEqual(
      expect.arrayContaining([
        {
          id: image.id,
          slug: image.slug,
          name: `Test ${image.slug}`,
          type: 'system',
          osFamily: 'debian',
          osVersion: '12',
          minDiskGb: 2,
          sizeBytes: 512,
          createdFrom: null,
          status: 'available',
          createdAt: expect.any(String),
        },
      ]),
    );
    expect((await t.get(`/api/images/${huge.id}`, owner.keyBearer).expect(200)).body).toMatchObject({ slug: huge.slug, minDiskGb: 30 });
    expect((await t.get(`/api/images/${randomUUID()}`, owner.bearer).expect(404)).body.code).toBe('not_found');
    expect((await t.get('/api/images?pageSize=0', owner.bearer).expect(400)).body.code).toBe('invalid_input');
  });

  it('answers 401 without a token on the new routes', async () => {
    await t.get('/api/images').expect(401);
    await t.get(`/api/images/${image.id}`).expect(401);
    const vps = await createService(t, owner.id, { image: image.slug });
    await request(t.http).post(`/api/services/${vps.id}/instance/rebuild`).send({ image: image.slug }).expect(401);
  });

  it('shows where to SSH to on a VPS built from an image, with the host key the API made for it (issue 58)', async () => {
    const vps = await createService(t, owner.id, { image: image.slug });
    const host = vps.instance!.ipv4!;
    const { ssh } = await instanceOf(vps.id);
    expect(ssh).toEqual({
      host,
      port: 22,
      hostKeys: [
        {
          type: 'ssh-ed25519',
          publicKey: expect.stringMatching(/^ssh-ed25519 AAAA/),
          fingerprint: expect.stringMatching(/^SHA256:/),
          knownHosts: expect.any(String),
        },
      ],
    });
    const [key] = ssh.hostKeys;
    expect(key.knownHosts).toBe(`${host} ${key.publicKey}`);
    expect(key.fingerprint).toBe(
      `SHA256:${createHash('sha256')
        .update(Buffer.from(key.publicKey.split(' ')[1], 'base64'))
        .digest('base64')
        .replace(/=+$/, '')}`,
    );
    expect(vps.instance!.ssh).toEqual(ssh);
    // Sealed at rest: the private key is nowhere in the row as text.
    const [row] = await t.db.query(`SELECT private_key_sealed FROM vps_host_keys WHERE service_id = $1 AND system = 'vps'`, [vps.id]);
    expect(row.private_key_sealed).toMatch(/^v1\./);
    expect(row.private_key_sealed).not.toContain('OPENSSH');
    expect(await imageOf(vps.id)).toBe(image.id);
  });

  it('rebuilds with chosen keys: 202 with an action and Location, recorded as instance.rebuild, ends succeeded and running', async () => {
    const other = await createImage(t);
    const key = await uploadSshKey(t, owner.bearer);
    const vps = await createService(t, owner.id, { image: image.slug, powerState: 'stopped' });
    const hostKeys = (await instanceOf(vps.id)).ssh.hostKeys;
    expect(hostKeys).toHaveLength(1);
    const res = await rebuild(vps.id, { image: other.slug, sshKeyIds: [key] }).expect(202);
    expect(res.body).toMatchObject({ serviceId: vps.id, type: 'rebuild', status: 'running' });
    expect(res.headers.location).toMatch(new RegExp(`/api/services/${vps.id}/instance/actions/${res.body.id}$`));
    const done = await waitFor(
      async () => (await t.get(`/api/services/${vps.id}/instance/actions/${res.body.id}`, owner.bearer).expect(200)).body,
      (action) => action.status !== 'running',
    );
    expect(done).toMatchObject({ type: 'rebuild', status: 'succeeded', error: null });
    expect((await instanceOf(vps.id)).powerState).toBe('running');
    // The same host keys after the rebuild: ssh does not answer "host key verification failed".
    expect((await instanceOf(vps.id)).ssh.hostKeys).toEqual(hostKeys);
    expect(await imageOf(vps.id)).toBe(other.id);
    const events = await t.get(`/api/events?action=instance.rebuild&entityType=service&entityId=${vps.id}`, owner.bearer).expect(200);
    expect(events.body.data).toHaveLength(1);
    expect(events.body.data[0].details).toMatchObject({ actionId: res.body.id, image: other.slug, sshKeyIds: [key] });
    const notifications = await waitFor(
      async () => (await t.get('/api/notifications?pageSize=100', owner.bearer).expect(200)).body.data,
      (list: { entity: { id: string } | null; type: string }[]) => list.some((n) => n.entity?.id === vps.id),
    );
    expect(notifications.find((n: { entity: { id: string } | null }) => n.entity?.id === vps.id)).toMatchObject({
      type: 'instance_action_succeeded',
      title: expect.stringContaining('rebuilt'),
    });
  });

  it('refuses bad rebuilds with clear problems and changes nothing', async () => {
    const vps = await createService(t, owner.id, { image: image.slug });
    const strangersKey = await uploadSshKey(t, stranger.bearer);
    const unknown = await rebuild(vps.id, { image: 'no-such-image' }).expect(400);
    expect(unknown.body).toMatchObject({ code: 'invalid_input', errors: [{ field: 'image' }] });
    expect(unknown.body.detail).toMatch(/No available image "no-such-image"/);
    const tooBig = await rebuild(vps.id, { image: huge.slug }).expect(400);
    expect(tooBig.body.detail).toMatch(/at least 30 GB; this VPS has 25 GB/);
    expect((await rebuild(vps.id, { image: image.slug, sshKeyIds: [strangersKey] }).expect(404)).body.code).toBe('not_found');
    expect((await rebuild(vps.id, { image: image.slug, sshKeyIds: ['not-a-uuid'] }).expect(400)).body.code).toBe('invalid_input');
    expect((await rebuild(vps.id, {}).expect(400)).body.code).toBe('invalid_input');
    expect((await rebuild(vps.id, { image: image.slug, extra: 1 }).expect(400)).body.code).toBe('invalid_input');
    expect(await actionsOf(vps.id)).toEqual([]);
    expect((await instanceOf(vps.id)).powerState).toBe('running');
    expect(await imageOf(vps.id)).toBe(image.id);
  });

  it("answers 404 for another account's VPS, and for a service that is not a VPS", async () => {
    const vps = await createService(t, owner.id, { image: image.slug });
    expect((await rebuild(vps.id, { image: image.slug }, stranger.bearer).expect(404)).body.code).toBe('not_found');
    const storage = await createService(t, owner.id, { type: 'object_storage' });
    await rebuild(storage.id, { image: image.slug }).expect(404);
    expect(await actionsOf(vps.id)).toEqual([]);
  });

  it("refuses to provision with another account's key or an image larger than the disk, creating nothing", async () => {
    const strangersKey = await uploadSshKey(t, stranger.bearer);
    const before = (await t.get('/api/services', owner.bearer).expect(200)).body.total;
    await expect(createService(t, owner.id, { image: image.slug, sshKeys: [strangersKey] })).rejects.toMatchObject({ status: 404 });
    await expect(createService(t, owner.id, { image: huge.slug })).rejects.toMatchObject({ status: 400 });
    expect((await t.get('/api/services', owner.bearer).expect(200)).body.total).toBe(before);
  });

  // An image whose file is still going to the hypervisors cannot be installed, so customers do not see it.
  it('hides an image still uploading: not listed, 404 by id, and refused by rebuild and provisioning', async () => {
    const slug = `uploading-${randomUUID().slice(0, 8)}`;
    const uploading = await t.app
      .get(ImagesRepository)
      .insertUploading({ slug, name: 'Half there', osFamily: 'debian', osVersion: '13', minDiskGb: 2, format: 'qcow2', sizeBytes: 512 });
    expect(uploading.status).toBe('uploading');
    const list = await t.get('/api/images?pageSize=100', owner.bearer).expect(200);
    expect(list.body.data.map((i: { id: string }) => i.id)).not.toContain(uploading.id);
    expect(list.body.data.every((i: { status: string }) => i.status === 'available')).toBe(true);
    expect((await t.get(`/api/images/${uploading.id}`, owner.bearer).expect(404)).body.code).toBe('not_found');
    const vps = await createService(t, owner.id, { image: image.slug });
    for (const ref of [slug, uploading.id]) {
      const refused = await rebuild(vps.id, { image: ref }).expect(400);
      expect(refused.body).toMatchObject({ code: 'invalid_input', errors: [{ field: 'image' }] });
      expect(refused.body.detail).toContain(`No available image "${ref}"`);
      await expect(createService(t, owner.id, { image: ref })).rejects.toMatchObject({ status: 400 });
    }
    expect(await actionsOf(vps.id)).toEqual([]);
    expect(await imageOf(vps.id)).toBe(image.id);
  });
});
