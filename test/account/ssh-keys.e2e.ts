import { generateKeyPairSync } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import sshpk from 'sshpk';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { SshKeysDemoSeeder } from '@app/ssh-keys';
import { createAccount, TestAccount } from '../factories/accounts';
import { startAppWithAccounts, TestAppWithAccounts } from '../support/test-app';

const fixture = (name: string) => readFileSync(join(__dirname, '../fixtures/ssh', name), 'utf8');
const fingerprintOf = (file: string) => new RegExp(`^${file.replace('.', '\\.')} \\d+ (\\S+)$`, 'm').exec(fixture('fingerprints.txt'))![1];
/** A fresh ed25519 public key line, for tests that need many distinct keys. */
const freshKey = (comment = 'fresh') => {
  const { publicKey } = generateKeyPairSync('ed25519');
  return `${sshpk.parseKey(publicKey.export({ type: 'spki', format: 'pem' }), 'pem').toString('ssh')} ${comment}`;
};

describe('SSH keys', () => {
  let t: TestAppWithAccounts;
  let owner: TestAccount;
  let stranger: TestAccount;
  beforeAll(async () => {
    ({ owner, stranger } = t = await startAppWithAccounts());
  });

  const add = (account: TestAccount, body: object, bearer = account.keyBearer) =>
    request(t.http).post('/api/ssh-keys').set('Authorization', bearer).send(body);
  const countFor = async (accountId: string) =>
    (await t.db.query('SELECT count(*)::int AS n FROM ssh_keys WHERE account_id = $1', [accountId]))[0].n as number;

  it.each([
    ['ed25519.pub', 'ssh-ed25519', 256],
    ['ecdsa256.pub', 'ecdsa-sha2-nistp256', 256],
    ['ecdsa384.pub', 'ecdsa-sha2-nistp384', 384],
    ['ecdsa521.pub', 'ecdsa-sha2-nistp521', 521],
    ['rsa2048.pub', 'ssh-rsa', 2048],
    ['rsa4096.pub', 'ssh-rsa', 4096],
  ])('adds %s with its type, bits and the SHA256 fingerprint ssh-keygen gives', async (file, type, bits) => {
    const account = await createAccount(t);
    const res = await add(account, { name: ' laptop ', publicKey: `\n  ${fixture(file)}  ` });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(String),
      name: 'laptop',
      publicKey: fixture(file).trim(),
      fingerprint: fingerprintOf(file),
      type,
      bits,
      createdAt: expect.any(String),
    });
  });

  it('keeps a comment as written and stores canonical base64', async () => {
    const account = await createAccount(t);
    const [type, data] = fixture('ecdsa256.pub').trim().split(' ');
    const res = await add(
      account,
      { name: 'c', publicKey: `# my key\n${type}\t${data.replace(/=+$/, '')}   ada  at  work \r\n` },
      account.bearer,
    );
    expect(res.status).toBe(201);
    expect(res.body.publicKey).toBe(`${type} ${data} ada  at  work`);
  });

  it.each([
    ['1024-bit RSA', () => fixture('rsa1024.pub'), 'at least 2048 bits'],
    ['DSA', () => fixture('dsa.pub'), 'DSA'],
    ['truncated base64', () => fixture('ed25519.pub').slice(0, 50), 'truncated'],
    ['a wrong type prefix', () => fixture('ecdsa256.pub').replace('ecdsa-sha2-nistp256', 'ssh-ed25519'), 'not "ssh-ed25519"'],
    ['an unknown type', () => 'ssh-xyz AAAAB3NzaC1yc2E', 'unsupported key type'],
    ['a certificate', () => fixture('ed25519-cert.pub'), 'certificates'],
    ['an RFC 4716 key', () => fixture('ed25519.rfc4716.pub'), 'ssh-keygen -i'],
    ['authorized_keys options', () => `no-pty ${fixture('ed25519.pub')}`, 'options'],
    ['two keys', () => fixture('ed25519.pub') + fixture('rsa2048.pub'), 'single line'],
    ['an empty key', () => ' \n ', 'expected OpenSSH format'],
    // Comments that made cloud-init refuse the whole user-data.
    ...[
      ['a C1 control', '\x80', 'U+0080'],
      ['CSI', '\x9b', 'U+009B'],
      ['U+FFFE', '\ufffe', 'U+FFFE'],
      ['U+FFFF', '\uffff', 'U+FFFF'],
      ['a noncharacter', '\ufdd0', 'U+FDD0'],
      ['a byte order mark', '\ufeff', 'U+FEFF'],
      ['a line separator', '\u2028', 'U+2028'],
    ].map(([name, char, codePoint]): [string, () => string, string] => [
      `${name} in the comment`,
      () => `${fixture('ed25519.pub').trim()} laptop${char}key`,
      `control or invisible character (${codePoint})`,
    ]),
    // The HTTP edge refuses a lone surrogate in any JSON string before the parser sees it.
    ['a lone surrogate in the comment', () => `${fixture('ed25519.pub').trim()} laptop\ud800key`, 'no lone surrogates'],
  ])('answers 400 with the reason for %s', async (_name, key, reason) => {
    const account = await createAccount(t);
    const res = await add(account, { name: 'bad', publicKey: key() });
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.body.code).toBe('invalid_input');
    expect(res.body.errors[0]).toMatchObject({ field: 'publicKey', message: expect.stringContaining(reason) });
    expect(await countFor(account.id)).toBe(0);
  });

  it.each(['ed25519.private-key-for-tests', 'rsa.pem.private-key-for-tests'])(
    'answers a clear 400 for the private key %s pasted by mistake, never echoing it',
    async (file) => {
      const privateKey = fixture(file);
      const res = await add(owner, { name: 'oops', publicKey: privateKey });
      expect(res.status).toBe(400);
      expect(res.body.detail).toMatch(/this is a private key/);
      for (const line of privateKey.split('\n').filter((l) => l.length > 20 && !l.startsWith('-----'))) {
        expect(res.text).not.toContain(line.slice(0, 16));
      }
    },
  );

  it.each([
    [{}],
    [{ name: 'x' }],
    [{ publicKey: fixture('ed25519.pub') }],
    [{ name: '', publicKey: fixture('ed25519.pub') }],
    [{ name: '   ', publicKey: fixture('ed25519.pub') }],
    [{ name: 'x'.repeat(65), publicKey: fixture('ed25519.pub') }],
    [{ name: 'x', publicKey: 42 }],
    [{ name: 'x', publicKey: fixture('ed25519.pub'), fingerprint: 'SHA256:mine' }],
  ])('answers 400 for the body %j', async (body) => {
    const res = await add(owner, body);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('invalid_input');
  });

  it('refuses the same key twice in one account (409 duplicate_key), whatever its comment, but not in another', async () => {
    const account = await createAccount(t);
    const other = await createAccount(t);
    await add(account, { name: 'a', publicKey: fixture('ecdsa384.pub') }).expect(201);
    const again = await add(account, { name: 'b', publicKey: fixture('ecdsa384.pub').replace('test@ecdsa384', 'other comment') });
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('duplicate_key');
    await add(other, { name: 'a', publicKey: fixture('ecdsa384.pub') }).expect(201);
  });

  it('lets one of three concurrent adds of the same key through', async () => {
    const account = await createAccount(t);
    const key = freshKey();
    const results = await Promise.all([1, 2, 3].map((i) => add(account, { name: `k${i}`, publicKey: key })));
    expect(results.map((r) => r.status).sort()).toEqual([201, 409, 409]);
    expect(await countFor(account.id)).toBe(1);
  });

  it('caps an account at 100 keys (409 quota_exceeded), also under concurrent adds', async () => {
    const account = await createAccount(t);
    await t.db.query(
      `INSERT INTO ssh_keys (account_id, name, public_key, fingerprint, type, bits)
       SELECT $1, 'bulk', 'ssh-ed25519 AAAA', 'SHA256:bulk' || g, 'ssh-ed25519', 256 FROM generate_series(1, 98) g`,
      [account.id],
    );
    const results = await Promise.all(Array.from({ length: 5 }, (_, i) => add(account, { name: `k${i}`, publicKey: freshKey() })));
    expect(results.map((r) => r.status).sort()).toEqual([201, 201, 409, 409, 409]);
    expect(results.filter((r) => r.status === 409).every((r) => r.body.code === 'quota_exceeded')).toBe(true);
    expect(await countFor(account.id)).toBe(100);
    await request(t.http)
      .delete(`/api/ssh-keys/${results.find((r) => r.status === 201)!.body.id}`)
      .set('Authorization', account.bearer)
      .expect(204);
    await add(account, { name: 'after delete', publicKey: freshKey() }).expect(201);
  });

  it('lists newest first, paginated, with an access token and with an API key', async () => {
    const account = await createAccount(t);
    const first = await add(account, { name: 'first', publicKey: fixture('ecdsa521.pub') });
    const second = await add(account, { name: 'second', publicKey: fixture('rsa2048.pub') });
    for (const bearer of [account.bearer, account.keyBearer]) {
      const page1 = await request(t.http).get('/api/ssh-keys?pageSize=1').set('Authorization', bearer);
      expect(page1.status).toBe(200);
      expect(page1.body).toMatchObject({ page: 1, pageSize: 1, total: 2, totalPages: 2 });
      expect(page1.body.data.map((k: { id: string }) => k.id)).toEqual([second.body.id]);
      const page2 = await request(t.http).get('/api/ssh-keys?page=2&pageSize=1').set('Authorization', bearer);
      expect(page2.body.data).toEqual([first.body]);
    }
    const theirs = await request(t.http).get('/api/ssh-keys').set('Authorization', stranger.bearer);
    expect(theirs.body.data.map((k: { id: string }) => k.id)).not.toContain(first.body.id);
  });

  it('gets, renames and deletes with an access token and with an API key', async () => {
    const account = await createAccount(t);
    for (const bearer of [account.bearer, account.keyBearer]) {
      const created = await add(account, { name: 'k', publicKey: freshKey() }, bearer);
      expect(created.status).toBe(201);
      const id = created.body.id;
      const got = await request(t.http).get(`/api/ssh-keys/${id}`).set('Authorization', bearer);
      expect(got.status).toBe(200);
      expect(got.body).toEqual(created.body);
      const renamed = await request(t.http).patch(`/api/ssh-keys/${id}`).set('Authorization', bearer).send({ name: ' renamed ' });
      expect(renamed.status).toBe(200);
      expect(renamed.body).toEqual({ ...created.body, name: 'renamed' });
      await request(t.http).delete(`/api/ssh-keys/${id}`).set('Authorization', bearer).expect(204);
      await request(t.http).get(`/api/ssh-keys/${id}`).set('Authorization', bearer).expect(404);
      await request(t.http).patch(`/api/ssh-keys/${id}`).set('Authorization', bearer).send({ name: 'x' }).expect(404);
      await request(t.http).delete(`/api/ssh-keys/${id}`).set('Authorization', bearer).expect(404);
    }
  });

  it("answers 404 for another account's key on every route and leaves it untouched", async () => {
    const account = await createAccount(t);
    const mine = await add(account, { name: 'mine', publicKey: freshKey() });
    const id = mine.body.id;
    for (const call of [
      () => request(t.http).get(`/api/ssh-keys/${id}`),
      () => request(t.http).patch(`/api/ssh-keys/${id}`).send({ name: 'stolen' }),
      () => request(t.http).delete(`/api/ssh-keys/${id}`),
    ]) {
      for (const bearer of [stranger.bearer, stranger.keyBearer]) {
        const res = await call().set('Authorization', bearer);
        expect(res.status).toBe(404);
        expect(res.body.code).toBe('not_found');
      }
    }
    const missing = await request(t.http).get('/api/ssh-keys/00000000-0000-4000-8000-000000000000').set('Authorization', stranger.bearer);
    expect(missing.body.detail).toBe((await request(t.http).get(`/api/ssh-keys/${id}`).set('Authorization', stranger.bearer)).body.detail);
    const untouched = await request(t.http).get(`/api/ssh-keys/${id}`).set('Authorization', account.bearer);
    expect(untouched.body).toEqual(mine.body);
  });

  it('answers 400 for a bad id, bad paging or a bad rename', async () => {
    const id = (await add(owner, { name: 'for-400', publicKey: freshKey() })).body.id;
    for (const call of [
      () => request(t.http).get('/api/ssh-keys/nope'),
      () => request(t.http).patch('/api/ssh-keys/nope').send({ name: 'x' }),
      () => request(t.http).delete('/api/ssh-keys/nope'),
      () => request(t.http).get('/api/ssh-keys?page=0'),
      () => request(t.http).get('/api/ssh-keys?pageSize=101'),
      () => request(t.http).patch(`/api/ssh-keys/${id}`).send({ name: '' }),
      () => request(t.http).patch(`/api/ssh-keys/${id}`).send({}),
      () => request(t.http).patch(`/api/ssh-keys/${id}`).send({ name: 'y', publicKey: freshKey() }),
    ]) {
      const res = await call().set('Authorization', owner.bearer);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('invalid_input');
    }
    expect((await request(t.http).get(`/api/ssh-keys/${id}`).set('Authorization', owner.bearer)).body.name).toBe('for-400');
  });

  it('seeds two demo keys', async () => {
    const account = await createAccount(t);
    await t.app.get(DataSource).transaction((manager) => t.app.get(SshKeysDemoSeeder).seed({ accountId: account.id, manager }));
    const res = await request(t.http).get('/api/ssh-keys').set('Authorization', account.bearer);
    expect(res.body.data.map((k: { name: string; type: string }) => [k.name, k.type]).sort()).toEqual([
      ['ci runner', 'ecdsa-sha2-nistp256'],
      ['laptop', 'ssh-ed25519'],
    ]);
  });

  it('answers 401 without a token on every route', async () => {
    const id = '00000000-0000-4000-8000-000000000000';
    for (const call of [
      request(t.http).get('/api/ssh-keys'),
      request(t.http)
        .post('/api/ssh-keys')
        .send({ name: 'x', publicKey: fixture('ed25519.pub') }),
      request(t.http).get(`/api/ssh-keys/${id}`),
      request(t.http).patch(`/api/ssh-keys/${id}`).send({ name: 'x' }),
      request(t.http).delete(`/api/ssh-keys/${id}`),
    ]) {
      const res = await call;
      expect(res.status).toBe(401);
      expect(res.headers['www-authenticate']).toMatch(/^Bearer/);
    }
  });

  it('lets a read-only API key read but not add, rename or delete (403)', async () => {
    const reader = await createAccount(t, { scopes: ['read'] });
    const id = (await add(reader, { name: 'mine', publicKey: freshKey() }, reader.bearer)).body.id;
    await request(t.http).get('/api/ssh-keys').set('Authorization', reader.keyBearer).expect(200);
    await request(t.http).get(`/api/ssh-keys/${id}`).set('Authorization', reader.keyBearer).expect(200);
    for (const call of [
      request(t.http).post('/api/ssh-keys').send({ name: 'x', publicKey: freshKey() }),
      request(t.http).patch(`/api/ssh-keys/${id}`).send({ name: 'x' }),
      request(t.http).delete(`/api/ssh-keys/${id}`),
    ]) {
      const res = await call.set('Authorization', reader.keyBearer);
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('insufficient_scope');
    }
    expect(await countFor(reader.id)).toBe(1);
    expect((await request(t.http).get(`/api/ssh-keys/${id}`).set('Authorization', reader.bearer)).body.name).toBe('mine');
  });
});
