import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import request from 'supertest';
import { createAccount, TestAccount } from './factories/accounts';
import { startTestApp, TestApp } from './support/test-app';

const fixture = (name: string) => readFileSync(join(__dirname, 'fixtures/ssh', name), 'utf8');

describe('SSH keys', () => {
  let t: TestApp;
  let owner: TestAccount;
  let stranger: TestAccount;
  beforeAll(async () => {
    t = await startTestApp();
    owner = await createAccount(t);
    stranger = await createAccount(t);
  });
  afterAll(() => t.close());

  const add = (account: TestAccount, body: object, bearer = account.keyBearer) =>
    request(t.http).post('/api/ssh-keys').set('Authorization', bearer).send(body);

  it('adds a key with its type, bits and SHA256 fingerprint, with an access token and with an API key', async () => {
    const res = await add(owner, { name: ' laptop ', publicKey: `  ${fixture('ed25519.pub')}  ` });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(String),
      name: 'laptop',
      publicKey: fixture('ed25519.pub').trim(),
      fingerprint: fixture('fingerprints.txt').match(/ed25519\.pub 256 (\S+)/)![1],
      type: 'ssh-ed25519',
      bits: 256,
      createdAt: expect.any(String),
    });
    const rsa = await add(owner, { name: 'rsa', publicKey: fixture('rsa4096.pub') }, owner.bearer);
    expect(rsa.status).toBe(201);
    expect(rsa.body).toMatchObject({ type: 'ssh-rsa', bits: 4096 });
  });

  it('refuses the same key twice in one account (409 duplicate_key) but not in another', async () => {
    const account = await createAccount(t);
    await add(account, { name: 'a', publicKey: fixture('ecdsa384.pub') }).expect(201);
    const again = await add(account, { name: 'b', publicKey: fixture('ecdsa384.pub').replace('test@ecdsa384', 'other comment') });
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('duplicate_key');
    await add(stranger, { name: 'a', publicKey: fixture('ecdsa384.pub') }).expect(201);
  });

  it.each([
    ['1024-bit RSA', () => fixture('rsa1024.pub'), 'at least 2048 bits'],
    ['DSA', () => fixture('dsa.pub'), 'DSA'],
    ['truncated base64', () => fixture('ed25519.pub').slice(0, 50), 'truncated'],
    ['a wrong type prefix', () => fixture('ecdsa256.pub').replace('ecdsa-sha2-nistp256', 'ssh-ed25519'), 'not "ssh-ed25519"'],
  ])('answers 400 with the reason for %s', async (_name, key, reason) => {
    const res = await add(owner, { name: 'bad', publicKey: key() });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('invalid_input');
    expect(res.body.errors[0]).toMatchObject({ field: 'publicKey', message: expect.stringContaining(reason) });
  });

  it('answers 400 for a private key pasted by mistake, without echoing it', async () => {
    const privateKey = fixture('ed25519.private-key-for-tests');
    const res = await add(owner, { name: 'oops', publicKey: privateKey });
    expect(res.status).toBe(400);
    expect(res.body.detail).toMatch(/private key/);
    for (const line of privateKey.split('\n').filter((l) => l.length > 20 && !l.startsWith('-----'))) expect(res.text).not.toContain(line.slice(0, 24));
  });

  it.each([[{}], [{ name: 'x' }], [{ publicKey: 'ssh-ed25519 AAAA' }], [{ name: '', publicKey: 'x' }], [{ name: 'x'.repeat(65), publicKey: 'x' }], [{ name: 'x', publicKey: 42 }]])(
    'answers 400 for %j',
    async (body) => {
      expect((await add(owner, body)).status).toBe(400);
    },
  );

  it('caps an account at 100 keys (409 quota_exceeded)', async () => {
    const account = await createAccount(t);
    await t.db.query(
      `INSERT INTO ssh_keys (account_id, name, public_key, fingerprint, type, bits)
       SELECT $1, 'bulk', 'ssh-ed25519 AAAA', 'SHA256:bulk' || g, 'ssh-ed25519', 256 FROM generate_series(1, 100) g`,
      [account.id],
    );
    const res = await add(account, { name: 'one more', publicKey: fixture('rsa2048.pub') });
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('quota_exceeded');
  });

  it('lists, gets, renames and deletes; another account\'s key is 404 for each and stays untouched', async () => {
    const account = await createAccount(t);
    const first = await add(account, { name: 'first', publicKey: fixture('ecdsa521.pub') });
    const second = await add(account, { name: 'second', publicKey: fixture('rsa2048.pub') });
    const list = await request(t.http).get('/api/ssh-keys?pageSize=1').set('Authorization', account.bearer);
    expect(list.body).toMatchObject({ page: 1, pageSize: 1, total: 2, totalPages: 2 });
    expect(list.body.data[0].id).toBe(second.body.id);

    const id = first.body.id;
    await request(t.http).get(`/api/ssh-keys/${id}`).set('Authorization', account.keyBearer).expect(200);
    for (const call of [
      request(t.http).get(`/api/ssh-keys/${id}`),
      request(t.http).patch(`/api/ssh-keys/${id}`).send({ name: 'stolen' }),
      request(t.http).delete(`/api/ssh-keys/${id}`),
    ]) {
      const res = await call.set('Authorization', stranger.keyBearer);
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('not_found');
    }
    const untouched = await request(t.http).get(`/api/ssh-keys/${id}`).set('Authorization', account.bearer);
    expect(untouched.body.name).toBe('first');

    const renamed = await request(t.http).patch(`/api/ssh-keys/${id}`).set('Authorization', account.keyBearer).send({ name: 'renamed' });
    expect(renamed.status).toBe(200);
    expect(renamed.body.name).toBe('renamed');
    await request(t.http).patch(`/api/ssh-keys/${id}`).set('Authorization', account.keyBearer).send({ name: '' }).expect(400);
    await request(t.http).patch(`/api/ssh-keys/${id}`).set('Authorization', account.keyBearer).send({ publicKey: 'x', name: 'y' }).expect(400);
    await request(t.http).delete(`/api/ssh-keys/${id}`).set('Authorization', account.keyBearer).expect(204);
    await request(t.http).get(`/api/ssh-keys/${id}`).set('Authorization', account.bearer).expect(404);
    await request(t.http).delete(`/api/ssh-keys/${id}`).set('Authorization', account.bearer).expect(404);
  });

  it('answers 401 without a token, 400 for a bad id, 403 to a read-only key on writes', async () => {
    await request(t.http).get('/api/ssh-keys').expect(401);
    await request(t.http).get('/api/ssh-keys/nope').set('Authorization', owner.bearer).expect(400);
    await request(t.http).get('/api/ssh-keys?page=0').set('Authorization', owner.bearer).expect(400);
    const reader = await createAccount(t, { scopes: ['read'] });
    await request(t.http).get('/api/ssh-keys').set('Authorization', reader.keyBearer).expect(200);
    expect((await add(reader, { name: 'x', publicKey: fixture('ed25519.pub') })).status).toBe(403);
  });
});
