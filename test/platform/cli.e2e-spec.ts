import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { createAccount } from '../factories/accounts';
import { runCli, SERVER } from '../support/run-cli';
import { runCliIn } from '../support/run-cli-in-app';
import { freshDataDir } from '../support/test-database';
import { startTestApp, TestApp } from '../support/test-app';
import { TEST_DATABASE_URL, testEnv } from '../support/test-env';

const PUBLIC_KEY = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIJuWfUrJ265mM1ebCtw3bmpgLLtYygbyTeBUXJE5MZeB ops@laptop';

describe('Operator command line', () => {
  let dataDir: string;
  let t: TestApp;
  beforeAll(async () => {
    dataDir = freshDataDir('cli-test-');
    t = await startTestApp();
  });
  afterAll(async () => {
    await t.close();
    rmSync(dataDir, { recursive: true, force: true });
  });
  const env = () => ({ DATA_DIR: dataDir });
  const email = `cli-${Date.now()}@example.test`;

  it('creates an account and an API key, printing one JSON line each; the key works', async () => {
    const account = await runCli(['account:create', '--email', email, '--password', 'a long enough pw', '--name', 'Ops Made'], env());
    expect(account.stderr).toBe('');
    expect(account.code).toBe(0);
    expect(account.lines).toEqual([
      { id: expect.any(String), email, name: 'Ops Made', emailVerifiedAt: null, createdAt: expect.any(String) },
    ]);

    const key = await runCli(
      ['api-key:create', '--email', email, '--name', 'automation', '--scopes', 'read', '--expires-at', '2099-01-01T00:00:00Z'],
      env(),
    );
    expect(key.code).toBe(0);
    expect(key.lines).toHaveLength(1);
    expect(key.lines[0]).toMatchObject({
      name: 'automation',
      scopes: ['read'],
      expiresAt: '2099-01-01T00:00:00.000Z',
      key: expect.stringMatching(/^hpk_/),
    });
    expect(key.stderr).not.toContain(key.lines[0].key);

    if (TEST_DATABASE_URL) {
      // Same database as the running test app: the key works there at once.
      const me = await request(t.http).get('/api/auth/me').set('Authorization', `Bearer ${key.lines[0].key}`);
      expect(me.status).toBe(200);
      expect(me.body.email).toBe(email);
    }
  });

  it('creates an account whose address the operator vouches for (--email-verified): it may make API keys at once', async () => {
    const vouched = `cli-verified-${Date.now()}@example.test`;
    const made = await runCliIn(t.app, [
      'account:create',
      '--email',
      vouched,
      '--password',
      'a long enough pw',
      '--name',
      'Vouched',
      '--email-verified',
    ]);
    expect(made.code).toBe(0);
    expect(made.lines[0]).toMatchObject({ email: vouched, emailVerifiedAt: expect.stringMatching(/^\d{4}-/) });
    const login = await request(t.http).post('/api/auth/login').send({ email: vouched, password: 'a long enough pw' }).expect(200);
    await request(t.http)
      .post('/api/auth/api-keys')
      .set('Authorization', `Bearer ${login.body.accessToken}`)
      .send({ name: 'ci', scopes: ['read'] })
      .expect(201);
    const events = await t.db.query(`SELECT action FROM activity_events WHERE account_id = $1 AND actor_type = 'staff' ORDER BY action`, [
      made.lines[0].id,
    ]);
    expect(events.map((e: { action: string }) => e.action)).toEqual(['account.email_verify', 'account.register']);
  });

  it('refuses bad input with a clear message and a non-zero exit', async () => {
    // The rules through the CLI's runner inside the test app; usage and a refusal through the built CLI's process.
    const { email: taken } = await createAccount(t);
    const again = await runCliIn(t.app, ['account:create', '--email', taken, '--password', 'a long enough pw', '--name', 'Again']);
    expect(again.code).toBe(65);
    expect(again.stderr).toContain('email_taken');
    const short = await runCliIn(t.app, ['account:create', '--email', 'x@example.test', '--password', 'short', '--name', 'X']);
    expect(short.code).toBe(65);
    expect(short.stderr).toContain('password must be at least 10 characters');
    const missing = await runCliIn(t.app, ['api-key:create', '--email', 'nobody@example.test', '--name', 'k']);
    expect(missing.code).toBe(64);
    expect(missing.stderr).toContain('No account with email');
    const badScope = await runCliIn(t.app, ['api-key:create', '--email', taken, '--name', 'k', '--scopes', 'admin']);
    expect(badScope.code).toBe(65);
    expect(badScope.stderr).toContain('scope');
    const unknown = await runCli(['no:such-command'], env());
    expect(unknown.code).toBe(64);
    expect(unknown.stderr).toContain('Usage: npm run cli');
    const processTaken = await runCli(['account:create', '--email', email, '--password', 'a long enough pw', '--name', 'Again'], env());
    expect(processTaken.code).toBe(65);
    expect(processTaken.stderr).toContain('email_taken');
  });

  it('adds an SSH key from a .pub file, and refuses a private key file without sending it on', async () => {
    const owner = await createAccount(t);
    const pub = join(dataDir, 'id_ed25519.pub');
    const priv = join(dataDir, 'id_ed25519');
    writeFileSync(pub, `${PUBLIC_KEY}\n`);
    writeFileSync(priv, '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----\n');
    const added = await runCliIn(t.app, ['ssh-key:add', '--email', owner.email, '--name', 'laptop', '--public-key-file', pub]);
    expect(added).toMatchObject({ code: 0, stderr: '' });
    expect(added.lines).toEqual([
      expect.objectContaining({ name: 'laptop', publicKey: PUBLIC_KEY, fingerprint: expect.stringMatching(/^SHA256:/) }),
    ]);
    const listed = await request(t.http).get('/api/ssh-keys').set('Authorization', owner.bearer).expect(200);
    expect(listed.body.data.map((k: { id: string }) => k.id)).toEqual([added.lines[0].id]);
    const recorded = await request(t.http).get('/api/events?action=ssh_key.create').set('Authorization', owner.bearer).expect(200);
    expect(recorded.body.data[0]).toMatchObject({ entity: { id: added.lines[0].id }, actor: { type: 'staff' } });

    const refused = await runCliIn(t.app, ['ssh-key:add', '--email', owner.email, '--name', 'oops', '--public-key-file', priv]);
    expect(refused.code).toBe(64);
    expect(refused.stderr).toContain(`${priv} is a private key: give the public one (${priv}.pub)`);
    const absent = await runCliIn(t.app, [
      'ssh-key:add',
      '--email',
      owner.email,
      '--name',
      'x',
      '--public-key-file',
      join(dataDir, 'nope.pub'),
    ]);
    expect(absent.code).toBe(64);
    expect(absent.stderr).toContain('ENOENT');
    const again = await runCliIn(t.app, ['ssh-key:add', '--email', owner.email, '--name', 'again', '--public-key-file', pub]);
    expect(again.code).toBe(65);
    expect(again.stderr).toContain('duplicate_key');
    const listedAfter = await request(t.http).get('/api/ssh-keys').set('Authorization', owner.bearer).expect(200);
    expect(listedAfter.body.total).toBe(1);
  });

  it('applies migrations with migration:run, and finds none pending afterwards', async () => {
    // On PGlite a new data directory starts empty; on PostgreSQL the run's database is migrated already.
    const dir = TEST_DATABASE_URL ? dataDir : mkdtempSync(join(tmpdir(), 'cli-migrate-'));
    try {
      if (!TEST_DATABASE_URL) {
        const first = await runCli(['migration:run'], { DATA_DIR: dir });
        expect(first.code).toBe(0);
        expect(first.lines).toEqual([{ migrations: 'applied', applied: expect.arrayContaining(['CreateAccounts1764000000100']) }]);
      }
      const again = await runCli(['migration:run'], { DATA_DIR: dir });
      expect(again.code).toBe(0);
      expect(again.lines).toEqual([{ migrations: 'up to date' }]);
    } finally {
      if (dir !== dataDir) rmSync(dir, { recursive: true, force: true });
    }
  });

  (TEST_DATABASE_URL ? it.skip : it)(
    'refuses to open an embedded data directory that a running server owns',
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'lock-test-'));
      const server = spawn(process.execPath, [SERVER], {
        env: { PATH: process.env.PATH, ...testEnv({ DATA_DIR: dir, PORT: '0', LOG_LEVEL: 'info' }) } as NodeJS.ProcessEnv,
      });
      try {
        let timer: NodeJS.Timeout | undefined;
        await new Promise<void>((resolve, reject) => {
          let out = '';
          // Within the test's own time, so the folder is removed below even when the server hangs.
          timer = setTimeout(() => reject(new Error(`server did not start: ${out}`)), 90_000);
          server.stdout.on('data', (chunk) => {
            out += chunk;
            if (out.includes('API listening')) resolve();
          });
          server.on('exit', (code) => reject(new Error(`server exited with ${code}: ${out}`)));
        }).finally(() => clearTimeout(timer));
        const res = await runCli(['migration:run'], { DATA_DIR: dir });
        expect(res.code).toBe(75);
        expect(res.stderr).toContain(`is in use by process ${server.pid}`);
      } finally {
        server.kill('SIGTERM');
        await new Promise((resolve) => server.on('exit', resolve));
        rmSync(dir, { recursive: true, force: true });
      }
    },
    120_000,
  );
});
