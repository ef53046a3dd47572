import { generateKeyPairSync } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { createAccount, TestAccount } from '../factories/accounts';
import { createService } from '../factories/services';
import { HostctlRun, runHostctl } from '../support/hostctl';
import { startTestApp, TestApp } from '../support/test-app';

/**
 * What tripped a newcomer in hostctl: a VPS named instead of its id, a product shown as a
 * UUID and no SSH command, a private key sent to the API, a revoked HOSTCTL_TOKEN not named, and
 * errors as text with `-o json`.
 */
describe('hostctl for a newcomer', () => {
  let t: TestApp;
  let home: string;
  let url: string;
  let account: TestAccount;
  let vpsId: string;
  let storageId: string;

  const hostctl = (args: string[], env: Record<string, string | undefined> = {}): Promise<HostctlRun> =>
    runHostctl(args, { home, env: { HOSTCTL_URL: url, HOSTCTL_TOKEN: account.apiKey, ...env } });

  beforeAll(async () => {
    t = await startTestApp();
    url = `http://127.0.0.1:${(t.http.address() as AddressInfo).port}`;
    home = mkdtempSync(join(tmpdir(), 'hostctl-newcomer-'));
    account = await createAccount(t);
    vpsId = (await createService(t, account.id, { type: 'vps', name: 'web-01', productSlug: 'vps-m' })).id;
    storageId = (await createService(t, account.id, { type: 'object_storage', name: 'backups' })).id;
  });
  afterAll(async () => {
    await t.close();
    rmSync(home, { recursive: true, force: true });
  });

  describe('a service by its name', () => {
    it('stops and starts a VPS named on the command line', async () => {
      const stopped = await hostctl(['vps', 'stop', 'web-01', '--wait', '-o', 'json']);
      expect(stopped.stderr).toBe('');
      expect(stopped.json).toMatchObject({ serviceId: vpsId, type: 'stop', status: 'succeeded' });
      expect((await hostctl(['vps', 'start', 'web-01', '--wait'])).code).toBe(0);
    });

    it('shows a service by name with the product slug and name, and for a VPS the ssh command', async () => {
      const shown = await hostctl(['services', 'get', 'web-01']);
      expect(shown.code).toBe(0);
      expect(shown.stdout).toMatch(new RegExp(`^ID:\\s+${vpsId}$`, 'm'));
      expect(shown.stdout).toMatch(/^Product:\s+vps-m \(VPS M\)$/m);
      const service = (await request(t.http).get(`/api/services/${vpsId}`).set('Authorization', account.bearer).expect(200)).body;
      const { host, port } = service.instance.ssh;
      expect(shown.stdout).toMatch(new RegExp(`^SSH:\\s+ssh -p ${port} root@${host}$`, 'm'));
      // JSON stays the API's object, for scripts.
      expect((await hostctl(['services', 'get', 'web-01', '-o', 'json'])).json).toEqual(service);

      const storage = await hostctl(['services', 'get', 'backups']);
      expect(storage.stdout).toMatch(new RegExp(`^ID:\\s+${storageId}$`, 'm'));
      expect(storage.stdout).not.toMatch(/^SSH:/m);
      expect((await hostctl(['storage', 'credentials', 'backups', '-o', 'json'])).json).toMatchObject({ bucket: expect.any(String) });
    });

    it('opens a ticket about a service named by --service', async () => {
      const ticket = await hostctl([
        'tickets',
        'create',
        '--subject',
        'web-01 is slow',
        '--message',
        'Since noon.',
        '--service',
        'web-01',
        '-o',
        'json',
      ]);
      expect(ticket.json).toMatchObject({ subject: 'web-01 is slow', serviceId: vpsId });
    });

    it('answers an unknown name with exit 1 and says where names are listed; a name of another type is unknown', async () => {
      for (const args of [
        ['vps', 'stop', 'web-02'],
        ['vps', 'stop', 'backups'],
      ]) {
        const run = await hostctl(args);
        expect({ args, code: run.code, stdout: run.stdout }).toEqual({ args, code: 1, stdout: '' });
        expect(run.stderr).toBe(`Error: no VPS named "${args[2]}" in this account ("hostctl services list" shows names and ids)\n`);
      }
    });

    it('refuses a name two services have with exit 2 and their ids, and takes an id as before', async () => {
      const twin = await createService(t, account.id, { type: 'vps', name: 'twin' });
      const other = await createService(t, account.id, { type: 'object_storage', name: 'twin' });
      const run = await hostctl(['services', 'get', 'twin']);
      expect(run.code).toBe(2);
      expect(run.stderr).toContain('2 services are named "twin": ');
      expect(run.stderr).toContain(`${twin.id} (vps, active)`);
      expect(run.stderr).toContain(`${other.id} (object_storage, active)`);
      // Among VPSes only one is named so.
      expect((await hostctl(['vps', 'reboot', 'twin', '-o', 'json'])).json).toMatchObject({ serviceId: twin.id });
      expect((await hostctl(['services', 'get', twin.id, '-o', 'json'])).json.id).toBe(twin.id);
    });
  });

  describe('ssh-keys add with a private key', () => {
    let keys: string;
    beforeAll(() => {
      keys = join(home, '.ssh');
      mkdirSync(keys, { recursive: true });
    });

    it('never sends a private key: refused with exit 2 before any request', async () => {
      const seen: string[] = [];
      const recorder: Server = createServer((req, res) => {
        seen.push(`${req.method} ${req.url}`);
        res.writeHead(500).end();
      });
      await new Promise<void>((resolve) => recorder.listen(0, '127.0.0.1', resolve));
      try {
        const privateKey = join(keys, 'id_lonely');
        writeFileSync(privateKey, privateOpenSshKey(), { mode: 0o600 });
        const run = await hostctl(['ssh-keys', 'add', '--public-key-file', privateKey], {
          HOSTCTL_URL: `http://127.0.0.1:${(recorder.address() as AddressInfo).port}`,
        });
        expect(run.code).toBe(2);
        expect(run.stderr).toContain(`${privateKey} is a PRIVATE key: it was not sent`);
        expect(run.stderr).toContain(`ssh-keygen -y -f ${privateKey}`);
        expect(seen).toEqual([]);
      } finally {
        await new Promise((resolve) => recorder.close(resolve));
      }
    });

    it('given the private key file, adds the .pub beside it', async () => {
      const privateKey = join(keys, 'id_ed25519');
      writeFileSync(privateKey, privateOpenSshKey(), { mode: 0o600 });
      writeFileSync(`${privateKey}.pub`, `${openSshEd25519()} me@laptop\n`);
      const run = await hostctl(['ssh-keys', 'add', '--public-key-file', privateKey, '-o', 'json']);
      expect(run.code).toBe(0);
      expect(run.stderr).toBe(`${privateKey} is a private key: using its public key ${privateKey}.pub\n`);
      expect(run.json).toMatchObject({ name: 'me@laptop', type: 'ssh-ed25519' });
    });
  });

  it('with a revoked key from HOSTCTL_TOKEN, the error says where the token came from', async () => {
    const scratch = await request(t.http)
      .post('/api/auth/api-keys')
      .set('Authorization', account.bearer)
      .send({ name: 'scratch' })
      .expect(201);
    await request(t.http).delete(`/api/auth/api-keys/${scratch.body.id}`).set('Authorization', account.bearer).expect(204);
    const run = await hostctl(['services', 'list'], { HOSTCTL_TOKEN: scratch.body.key });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/status: 401\n\s+code: unauthorized\n\s+request id: \S+\n\s+The token comes from HOSTCTL_TOKEN/);

    const structured = await hostctl(['services', 'list', '-o', 'json'], { HOSTCTL_TOKEN: scratch.body.key });
    expect(JSON.parse(structured.stderr)).toMatchObject({
      code: 'unauthorized',
      status: 401,
      hint: expect.stringContaining('HOSTCTL_TOKEN'),
    });
  });

  describe('errors with -o json', () => {
    it('writes an API error as one JSON object on stderr: code, status, detail, request id', async () => {
      const stranger = await createAccount(t);
      const theirs = await createService(t, stranger.id, { type: 'vps' });
      const run = await hostctl(['-o', 'json', 'services', 'get', theirs.id]);
      expect(run.code).toBe(1);
      expect(run.stdout).toBe('');
      expect(JSON.parse(run.stderr)).toMatchObject({
        code: 'not_found',
        status: 404,
        detail: expect.any(String),
        requestId: expect.any(String),
        exitCode: 1,
      });
    });

    it.each([
      [['vps', 'stop', '-o', 'json'], 2, 'usage', "missing required argument 'id'"],
      [['vps', 'stop', 'nope', '--output=json'], 1, 'not_found', 'no VPS named "nope"'],
      [['services', 'lsit', '-o', 'json'], 2, 'usage', "unknown command 'lsit'"],
      [['ssh-keys', 'add', '--public-key-file', '/nonexistent/key.pub', '-o', 'json'], 2, 'usage', 'cannot read the public key file'],
    ])('writes a local error of %j as JSON too (exit %d, %s)', async (args, exitCode, code, detail) => {
      const run = await hostctl(args);
      expect(run.code).toBe(exitCode);
      expect(run.stdout).toBe('');
      const body = JSON.parse(run.stderr);
      expect(body).toMatchObject({ code, status: null, exitCode });
      expect(body.detail).toContain(detail);
    });

    it('writes YAML with -o yaml, and text otherwise', async () => {
      expect((await hostctl(['vps', 'stop', 'nope', '-o', 'yaml'])).stderr).toMatch(
        /^code: not_found\nstatus: null\ndetail: no VPS named "nope"/m,
      );
      expect((await hostctl(['vps', 'stop', 'nope'])).stderr).toMatch(/^Error: no VPS named "nope"/);
    });
  });
});

function privateOpenSshKey(): string {
  // What matters is the armour: the key inside is never read.
  return `-----BEGIN OPENSSH PRIVATE KEY-----\n${Buffer.from('openssh-key-v1\0').toString('base64')}\n-----END OPENSSH PRIVATE KEY-----\n`;
}

/** A fresh OpenSSH ed25519 public key line (`ssh-ed25519 AAAA...`). */
function openSshEd25519(): string {
  const der = generateKeyPairSync('ed25519').publicKey.export({ format: 'der', type: 'spki' });
  const field = (data: Buffer) => Buffer.concat([Buffer.from([0, 0, 0, data.length]), data]);
  return `ssh-ed25519 ${Buffer.concat([field(Buffer.from('ssh-ed25519')), field(der.subarray(-32))]).toString('base64')}`;
}
