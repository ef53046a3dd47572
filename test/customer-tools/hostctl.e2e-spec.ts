import { spawn } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Command } from 'commander';
import { generate } from 'otplib';
import request from 'supertest';
import { parse as parseYaml } from 'yaml';
import { NotificationHub } from '@app/notifications';
import { createProgram } from '../../cli/src/program';
import { BackupRunner } from '../../libs/vps/src/backups/backup-runner';
import { createAccount, TestAccount } from '../factories/accounts';
import { createImage, uploadSshKey } from '../factories/images';
import { createService } from '../factories/services';
import { HOSTCTL, HostctlOptions, HostctlRun, runHostctl } from '../support/hostctl';
import { freePort } from '../support/server-process';
import { startTestApp, TestApp } from '../support/test-app';
import { waitFor, waitForOrFail } from '../support/wait-for';

type Run = HostctlRun;

/**
 * hostctl (cli/, built by `npm test`) as a customer runs it: a child process with its own HOME and
 * config folder, against the whole API on the test database. Steps share one account and run in order.
 */
describe('hostctl: the command line against the API', () => {
  let t: TestApp;
  let listener: Server;
  let url: string;
  let home: string;
  let account: TestAccount;
  let vpsId: string;
  let storageId: string;
  let apiKey: { id: string; key: string };

  const configFile = () => join(home, 'config', 'hostctl', 'config.json');

  function hostctl(args: string[], options: Omit<HostctlOptions, 'home'> = {}): Promise<Run> {
    return runHostctl(args, { ...options, home, env: { HOSTCTL_URL: url, ...options.env } });
  }

  /** Runs hostctl and fails the test with its stderr unless it exited 0. */
  async function ok(args: string[], options?: Parameters<typeof hostctl>[1]): Promise<Run> {
    const run = await hostctl(args, options);
    if (run.code !== 0) throw new Error(`hostctl ${args.join(' ')} exited ${run.code}: ${run.stderr}`);
    return run;
  }

  beforeAll(async () => {
    // Upload and console URLs are built from PUBLIC_URL, so the app also listens at that address.
    const port = await freePort();
    url = `http://127.0.0.1:${port}`;
    t = await startTestApp({ PUBLIC_URL: url, COMPUTE_TRANSITION_DELAY_MS: '300' });
    listener = createServer(t.app.getHttpAdapter().getInstance());
    await new Promise<void>((resolve) => listener.listen(port, '127.0.0.1', resolve));
    home = mkdtempSync(join(tmpdir(), 'hostctl-'));
    account = await createAccount(t);
    vpsId = (await createService(t, account.id, { type: 'vps', name: 'web-1' })).id;
    storageId = (await createService(t, account.id, { type: 'object_storage', name: 'backups' })).id;
  });
  afterAll(async () => {
    await new Promise((resolve) => listener.close(resolve));
    await t.close();
    rmSync(home, { recursive: true, force: true });
  });

  it('has help for every command: usage, a description and examples', () => {
    const leaves: { path: string; command: Command }[] = [];
    const walk = (command: Command, path: string) => {
      const children = command.commands.filter((c) => c.name() !== 'help');
      if (children.length === 0) leaves.push({ path, command });
      for (const child of children) walk(child, `${path} ${child.name()}`);
      expect({ path, description: command.description().length > 0 }).toEqual({ path, description: true });
    };
    walk(createProgram(), 'hostctl');
    expect(leaves.length).toBeGreaterThanOrEqual(30);
    for (const { path, command } of leaves) {
      let help = '';
      command.configureOutput({ writeOut: (text) => (help += text) });
      command.outputHelp();
      // A command with an alias is `get|show` in its usage line.
      expect({
        path,
        usage: help.startsWith(`Usage: ${path} `) || help.startsWith(`Usage: ${path}|`),
        examples: help.includes(`\nExamples:\n  ${path}`),
      }).toEqual({
        path,
        usage: true,
        examples: true,
      });
    }
  });

  it('refuses usage errors with exit code 2, and asks for a login before calling the API', async () => {
    const unknown = await hostctl(['services', 'lsit']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/unknown command 'lsit'[\s\S]*Did you mean list\?/);
    expect((await hostctl(['-o', 'xml', 'services', 'list'])).code).toBe(2);
    expect((await hostctl(['tickets', 'create', '--message', 'no subject'])).code).toBe(2);
    expect((await hostctl(['vps', 'stop'])).code).toBe(2);

    const anonymous = await hostctl(['services', 'list']);
    expect(anonymous.code).toBe(2);
    expect(anonymous.stderr).toContain('hostctl auth login');

    const help = await ok(['vps', 'stop', '--help']);
    expect(help.stdout).toMatch(/^Usage: hostctl vps stop \[options\] <id>/);
    expect(help.stdout).toContain('--wait');
    expect(help.stdout).toContain('Global Options:');
    expect(help.stdout).toContain('Examples:');
  });

  it('prints the help of hostctl, and of a command group called without a subcommand, on stdout with exit code 0', async () => {
    for (const args of [[], ['services'], ['auth'], ['auth', 'token'], ['tickets'], ['context']]) {
      const run = await hostctl(args);
      expect({ args, code: run.code, stderr: run.stderr }).toEqual({ args, code: 0, stderr: '' });
      expect(run.stdout).toMatch(new RegExp(`^Usage: ${['hostctl', ...args].join(' ')} \\[options\\] \\[command\\]\n`));
      expect(run.stdout).toContain('\nCommands:\n');
    }
    expect((await hostctl([])).stdout).toContain('--no-wait-rate-limit');
  });

  it('says which URL it cannot reach, where that URL came from, and how to use another', async () => {
    const closed = `http://127.0.0.1:${await freePort()}`;
    const howTo = /To use another: set HOSTCTL_URL=<url>, log in with "hostctl auth login --url <url>"[\s\S]*"hostctl --context <name>"/;

    const fromEnv = await hostctl(['services', 'list'], { env: { HOSTCTL_URL: closed, HOSTCTL_TOKEN: 'hpk_anything' } });
    expect(fromEnv.code).toBe(1);
    expect(fromEnv.stdout).toBe('');
    expect(fromEnv.stderr).toContain(`Error: cannot reach the API at ${closed} (ECONNREFUSED)\n  The address comes from HOSTCTL_URL.\n`);
    expect(fromEnv.stderr).toMatch(howTo);

    await ok(['context', 'create', 'gone', '--url', closed, '--token-stdin'], { input: 'hpk_anything' });
    const fromContext = await hostctl(['services', 'list'], { env: { HOSTCTL_URL: undefined } });
    expect(fromContext.code).toBe(1);
    expect(fromContext.stderr).toContain(`cannot reach the API at ${closed} (ECONNREFUSED)\n  The address comes from context "gone".`);
    await ok(['context', 'delete', 'gone']);

    const login = await hostctl(['auth', 'login', '--url', closed, '--email', 'someone@example.test', '--password-stdin'], {
      input: 'a password',
    });
    expect(login.code).toBe(1);
    expect(login.stderr).toContain(`cannot reach the API at ${closed} (ECONNREFUSED)\n  The address comes from the --url option.`);
    expect(login.stderr).toMatch(howTo);
  });

  it('logs in with email and password into a config file of mode 0600, and refreshes the session', async () => {
    const wrong = await hostctl(['auth', 'login', '--url', url, '--email', account.email, '--password-stdin'], {
      input: 'not the password',
    });
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(/code: invalid_credentials/);

    const login = await ok(['auth', 'login', '--url', url, '--email', account.email, '--password-stdin'], {
      input: `${account.password}\n`,
    });
    expect(login.stderr).toContain(`Logged in as ${account.email}`);
    expect(statSync(configFile()).mode & 0o777).toBe(0o600);
    expect(statSync(join(home, 'config', 'hostctl')).mode & 0o777).toBe(0o700);
    const stored = JSON.parse(readFileSync(configFile(), 'utf8'));
    expect(stored).toMatchObject({
      currentContext: 'default',
      contexts: { default: { url, email: account.email, refreshToken: expect.any(String) } },
    });
    expect(JSON.stringify(stored)).not.toContain(account.password);

    expect((await ok(['auth', 'whoami', '-o', 'json'], { env: { HOSTCTL_URL: undefined } })).json).toMatchObject({
      id: account.id,
      email: account.email,
    });

    // An access token about to expire is refreshed before the request, and the new pair is kept.
    stored.contexts.default.accessTokenExpiresAt = new Date(Date.now() - 1000).toISOString();
    writeFileSync(configFile(), JSON.stringify(stored));
    expect((await ok(['auth', 'whoami', '-o', 'json'])).json.id).toBe(account.id);
    const refreshed = JSON.parse(readFileSync(configFile(), 'utf8')).contexts.default;
    expect(refreshed.refreshToken).not.toBe(stored.contexts.default.refreshToken);
    expect(Date.parse(refreshed.accessTokenExpiresAt)).toBeGreaterThan(Date.now());
  });

  it('logs in to an account with two-factor sign-in: --code, a recovery code, and a usage error when the code cannot be asked for', async () => {
    const other = await createAccount(t);
    const setup = await request(t.http).post('/api/auth/2fa/setup').set('Authorization', other.bearer).expect(200);
    const code = () => generate({ secret: setup.body.secret, epoch: Math.floor(Date.now() / 1000) });
    const enabled = await request(t.http)
      .post('/api/auth/2fa/enable')
      .set('Authorization', other.bearer)
      .send({ password: other.password, code: await code() })
      .expect(200);
    const login = (extra: string[]) =>
      hostctl(['--context', 'mfa', 'auth', 'login', '--url', url, '--email', other.email, '--password-stdin', ...extra], {
        input: other.password,
      });

    const unasked = await login([]);
    expect(unasked.code).toBe(2);
    expect(unasked.stderr).toBe(
      'Error: this account has two-factor sign-in, and standard input is not a terminal to ask for the code: ' +
        'give it with --code <6 digits> (or a recovery code with --recovery-code <code>)\n',
    );
    const noPassword = await hostctl(['auth', 'login', '--url', url, '--email', other.email]);
    expect(noPassword.code).toBe(2);
    expect(noPassword.stderr).toContain('Password is needed and standard input is not a terminal: pipe it in with --password-stdin');
    const wrong = await login(['--code', '000000']);
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(/code: /);

    // The code accepted at enable is spent for its time step; a recovery code signs in at once.
    const recovered = await login(['--recovery-code', enabled.body.recoveryCodes[0]]);
    expect(recovered.code).toBe(0);
    expect(recovered.stderr).toContain(`Logged in as ${other.email}`);
    expect((await ok(['--context', 'mfa', 'auth', 'whoami', '-o', 'json'], { env: { HOSTCTL_URL: undefined } })).json.id).toBe(other.id);
    await ok(['context', 'use', 'default']);
  });

  it('creates, lists and revokes API keys; a context holds a key; a revoked key gives exit 1 with 401', async () => {
    apiKey = (await ok(['auth', 'token', 'create', '--name', 'ci', '--scopes', 'read,write', '-o', 'json'])).json;
    expect(apiKey).toMatchObject({ name: 'ci', scopes: ['read', 'write'], key: expect.stringMatching(/^hpk_/) });
    const listed = (await ok(['auth', 'token', 'list', '-o', 'json'])).json;
    expect(listed.map((k: { id: string }) => k.id)).toContain(apiKey.id);
    expect(JSON.stringify(listed)).not.toContain(apiKey.key);

    await ok(['context', 'create', 'ci', '--url', url, '--token-stdin'], { input: apiKey.key });
    expect((await ok(['context', 'current'])).stdout.trim()).toBe('ci');
    const contexts = (await ok(['context', 'list', '-o', 'json'])).json;
    expect(contexts).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ name: 'ci', current: true, credentials: 'api key' }),
        expect.objectContaining({ name: 'default', current: false, credentials: 'session' }),
      ]),
    );
    expect((await ok(['auth', 'whoami', '-o', 'json'])).json.id).toBe(account.id);
    expect(statSync(configFile()).mode & 0o777).toBe(0o600);

    const scratch = (await ok(['auth', 'token', 'create', '--name', 'scratch', '-o', 'json'])).json;
    await ok(['auth', 'token', 'revoke', scratch.id]);
    const revoked = await hostctl(['services', 'list'], { env: { HOSTCTL_TOKEN: scratch.key } });
    expect(revoked.code).toBe(1);
    expect(revoked.stderr).toMatch(/status: 401\n\s+code: unauthorized\n\s+request id: \S+/);
    await ok(['context', 'use', 'default']);
  });

  it("lists and shows services as JSON, YAML and tables; another account's service is a 404 (exit 1)", async () => {
    const all = (await ok(['services', 'list', '-o', 'json'])).json;
    expect(all.map((s: { name: string }) => s.name).sort()).toEqual(['backups', 'web-1']);
    expect((await ok(['services', 'list', '--type', 'vps', '-o', 'json'])).json.map((s: { id: string }) => s.id)).toEqual([vpsId]);
    expect(parseYaml((await ok(['services', 'get', vpsId, '-o', 'yaml'])).stdout)).toMatchObject({
      id: vpsId,
      name: 'web-1',
      instance: { powerState: 'running' },
    });

    const table = (await ok(['services', 'list'])).stdout.split('\n');
    expect(table[0]).toMatch(/^ID\s+NAME\s+TYPE\s+STATUS\s+POWER/);
    expect(table.some((line) => line.startsWith(vpsId) && /web-1\s+vps\s+active\s+running/.test(line))).toBe(true);
    const bare = (await ok(['services', 'list', '--no-header'])).stdout;
    expect(bare).not.toMatch(/^ID/);
    expect(bare.trim().split('\n')).toHaveLength(2);
    expect(bare).not.toContain('\u001b['); // not a terminal: no colours

    const stranger = await createAccount(t);
    const theirs = await createService(t, stranger.id, { type: 'vps' });
    const missing = await hostctl(['services', 'get', theirs.id]);
    expect(missing.code).toBe(1);
    expect(missing.stdout).toBe('');
    expect(missing.stderr).toMatch(/status: 404\n\s+code: not_found\n\s+request id: \S+/);
  });

  it('stops a VPS with --wait, reports 409 for a second stop, and starts it again', async () => {
    const stopped = (await ok(['vps', 'stop', vpsId, '--wait', '-o', 'json'])).json;
    expect(stopped).toMatchObject({ serviceId: vpsId, type: 'stop', status: 'succeeded', finishedAt: expect.any(String) });
    expect((await ok(['services', 'get', vpsId, '-o', 'json'])).json.instance.powerState).toBe('stopped');

    const again = await hostctl(['vps', 'stop', vpsId]);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/status: 409\n\s+code: invalid_state\n\s+request id: \S+/);

    const start = await ok(['vps', 'start', vpsId, '--wait']);
    expect(start.stdout).toMatch(/^start: succeeded \(action [0-9a-f-]{36}\)$/m);
    expect((await ok(['services', 'get', vpsId, '-o', 'json'])).json.instance.powerState).toBe('running');
  });

  it('resets the root password: printed with -o json, refused on a pipe without it (nothing set)', async () => {
    const passwordsSet = async () =>
      (
        await t.db.query(`SELECT count(*)::int AS n FROM compute_simulator_tasks WHERE type = 'password' AND instance_ref = $1`, [
          `sim-${vpsId}`,
        ])
      )[0].n;
    const refused = await hostctl(['vps', 'reset-password', 'web-1']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/not a terminal.*-o json/);
    expect(await passwordsSet()).toBe(0);
    const first = (await ok(['vps', 'reset-password', 'web-1', '-o', 'json'])).json;
    expect(first.rootPassword).toMatch(/^[A-HJ-NP-Za-km-z2-9]{20}$/);
    const second = (await ok(['vps', 'reset-password', vpsId, '-o', 'json'])).json;
    expect(second.rootPassword).not.toBe(first.rootPassword);
    expect(await passwordsSet()).toBe(2);
  });

  it('rescues a VPS with --wait and a key by name, printing the password once (refused on a pipe), then unrescues it', async () => {
    await createImage(t, { rescue: true });
    const keyId = await uploadSshKey(t, account.bearer);
    const keyName = (await t.get(`/api/ssh-keys/${keyId}`, account.bearer).expect(200)).body.name as string;
    const refused = await hostctl(['vps', 'rescue', 'web-1']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/not a terminal.*-o json/);
    expect((await ok(['services', 'get', vpsId, '-o', 'json'])).json.instance.rescue).toBe(false);
    const rescued = (await ok(['vps', 'rescue', 'web-1', '--ssh-key', keyName, '--wait', '-o', 'json'])).json;
    expect(rescued).toMatchObject({
      serviceId: vpsId,
      type: 'rescue',
      status: 'succeeded',
      rootPassword: expect.stringMatching(/^[A-HJ-NP-Za-km-z2-9]{20}$/),
      rescueEndsAt: expect.any(String),
    });
    const [{ params }] = await t.db.query(`SELECT params FROM instance_actions WHERE id = $1`, [rescued.id]);
    expect(params.rescue.boot.seed.sshKeys).toHaveLength(1);
    const unknownKey = await hostctl(['vps', 'rescue', 'web-1', '--ssh-key', 'no-such-key', '-o', 'json']);
    expect(unknownKey.stderr).toMatch(/no SSH key named .*no-such-key/);
    const back = await ok(['vps', 'unrescue', 'web-1', '--wait']);
    expect(back.stdout).toMatch(/^unrescue: succeeded \(action [0-9a-f-]{36}\)$/m);
    await waitFor(
      async () => (await ok(['services', 'get', vpsId, '-o', 'json'])).json.instance.rescue,
      (rescue) => rescue === false,
    );
    await request(t.http).delete(`/api/ssh-keys/${keyId}`).set('Authorization', account.bearer).expect(204);
  });

  it('snapshots a VPS with --wait, lists the snapshot and deletes it', async () => {
    const made = (await ok(['vps', 'snapshot', 'create', 'web-1', '--name', 'before-upgrade', '--wait', '-o', 'json'])).json;
    expect(made).toMatchObject({
      serviceId: vpsId,
      type: 'snapshot',
      status: 'succeeded',
      snapshot: { imageId: expect.any(String), consistency: 'crash' },
    });
    const imageId = made.snapshot.imageId as string;
    expect((await ok(['vps', 'snapshot', 'list', '-o', 'json'])).json).toEqual([
      expect.objectContaining({
        id: imageId,
        type: 'snapshot',
        name: 'before-upgrade',
        status: 'available',
        createdFrom: { serviceId: vpsId },
      }),
    ]);
    expect((await ok(['vps', 'snapshot', 'list'])).stdout).toMatch(
      new RegExp(`^${imageId}\\s+snapshot-\\S+\\s+before-upgrade\\s+${vpsId}\\s+\\d+\\s+available`, 'm'),
    );
    expect((await ok(['vps', 'snapshot', 'delete', imageId])).stdout).toMatch(`Snapshot ${imageId} deleted`);
    expect((await ok(['vps', 'snapshot', 'list', '-o', 'json'])).json).toEqual([]);
    const gone = await hostctl(['vps', 'snapshot', 'delete', imageId]);
    expect(gone.code).toBe(1);
    expect(gone.stderr).toMatch(/status: 404\n\s+code: not_found/);
  });

  it('enables backups, lists them, restores one with --wait and disables them', async () => {
    expect((await ok(['vps', 'backups', 'enable', 'web-1'])).stdout).toMatch(/^backups enabled \(7 kept, next at \S+\)/m);
    const { backupId } = (await t.app.get(BackupRunner).run(vpsId, 'operator')) as { backupId: string };
    const listed = (await ok(['vps', 'backups', 'list', 'web-1', '-o', 'json'])).json;
    expect(listed).toEqual([expect.objectContaining({ id: backupId, status: 'available', consistency: 'crash' })]);
    expect((await ok(['vps', 'backups', 'list', 'web-1'])).stdout).toMatch(
      new RegExp(`^${backupId}\\s+\\S+\\s+available\\s+262144\\s+crash`, 'm'),
    );
    const restored = (await ok(['vps', 'backups', 'restore', 'web-1', backupId, '--wait', '-o', 'json'])).json;
    expect(restored).toMatchObject({ type: 'restore', status: 'succeeded', serviceId: vpsId });
    expect((await ok(['vps', 'backups', 'disable', 'web-1'])).stdout).toMatch(/^backups disabled/m);
    const missing = await hostctl(['vps', 'backups', 'restore', 'web-1', '00000000-0000-4000-8000-000000000000']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/status: 404\n\s+code: not_found/);
  });

  it('draws the graphs of a VPS, gives the numbers with -o json, and refuses a bad --since or --type', async () => {
    const numbers = (await ok(['vps', 'metrics', vpsId, '--type', 'cpu', '--since', '6h', '-o', 'json'])).json;
    expect(numbers).toMatchObject({ step: 30, unavailable: [] });
    expect(Date.parse(numbers.end) - Date.parse(numbers.start)).toBe(6 * 3600_000);
    expect(Object.keys(numbers.series)).toEqual(['cpu']);
    expect(numbers.series.cpu.length).toBeGreaterThan(700);
    expect(numbers.series.cpu.every(([t, v]: [number, number]) => Number.isInteger(t) && typeof v === 'number')).toBe(true);

    const chart = (await ok(['vps', 'metrics', 'web-1'])).stdout;
    expect(chart).toMatch(/^cpu {2}last [\d.]+ %, max [\d.]+ %$/m);
    expect(chart).toMatch(/^disk\.0\.bandwidth\.read {2}last [\d.]+ [kM]?B\/s/m);
    expect(chart).toMatch(/^ *[\d.]+ % ┤[ ▁▂▃▄▅▆▇█]*█/m);
    expect(chart).toMatch(/^ *0\.0 % ┤[ ▁▂▃▄▅▆▇█]+$/m);
    expect(chart).toContain('network: no data for this VPS over this range');

    for (const args of [
      ['--since', '45d'],
      ['--since', '6 hours'],
      ['--type', 'memory'],
    ]) {
      const refused = await hostctl(['vps', 'metrics', vpsId, ...args]);
      expect({ args, code: refused.code }).toEqual({ args, code: 2 });
    }
  });

  it('keeps the alerts of a VPS: create, list, delete, and refuses a bad --type or --above', async () => {
    const created = (await ok(['vps', 'alerts', 'create', 'web-1', '--type', 'cpu', '--above', '90', '--for', '10', '-o', 'json'])).json;
    expect(created).toMatchObject({ serviceId: vpsId, type: 'cpu', above: 90, forMinutes: 10, state: 'ok' });
    expect((await ok(['vps', 'alerts', 'list', vpsId])).stdout).toMatch(new RegExp(`^${created.id}\\s+cpu\\s+90 %\\s+10m\\s+ok`, 'm'));
    expect((await ok(['vps', 'alerts', 'delete', 'web-1', created.id])).stdout).toMatch(`Alert ${created.id} deleted`);
    expect((await ok(['vps', 'alerts', 'list', vpsId, '-o', 'json'])).json).toEqual([]);
    for (const args of [
      ['--type', 'memory', '--above', '1'],
      ['--type', 'cpu', '--above', '-1'],
      ['--type', 'cpu', '--above', '1', '--for', '61'],
      ['--type', 'cpu'],
    ]) {
      const refused = await hostctl(['vps', 'alerts', 'create', vpsId, ...args]);
      expect({ args, code: refused.code }).toEqual({ args, code: 2 });
    }
    const tooHigh = await hostctl(['vps', 'alerts', 'create', vpsId, '--type', 'cpu', '--above', '101']);
    expect(tooHigh.code).toBe(1);
    expect(tooHigh.stderr).toMatch(/status: 400\n\s+code: invalid_input/);
  });

  it('on a terminal: colours unless NO_COLOR is set, and a progress line while --wait waits', async () => {
    const coloured = await hostctl(['services', 'list'], { tty: true });
    expect(coloured.code).toBe(0);
    expect(coloured.stdout).toContain('\u001b[32mrunning\u001b[39m');
    const plain = await hostctl(['services', 'list'], { tty: true, env: { NO_COLOR: '1' } });
    expect(plain.stdout).toMatch(/web-1\s+vps\s+active\s+running/);
    expect(plain.stdout).not.toContain('\u001b[');

    const waited = await hostctl(['vps', 'reboot', vpsId, '--wait'], { tty: true, env: { NO_COLOR: '1' } });
    expect(waited.code).toBe(0);
    expect(waited.stdout).toMatch(/[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] reboot of [0-9a-f-]{36} \(\d+s\)/);
    expect(waited.stdout).toMatch(/reboot: succeeded/);
  });

  it('opens a console session and reads object storage credentials', async () => {
    const consoleSession = (await ok(['vps', 'console', vpsId, '-o', 'json'])).json;
    expect(consoleSession).toMatchObject({
      protocol: 'vnc',
      url: expect.stringMatching(/^wss?:\/\/127\.0\.0\.1:\d+\/console\?token=/),
      password: expect.any(String),
    });
    const printed = (await ok(['vps', 'console', vpsId])).stdout;
    expect(printed).toMatch(/^URL:\s+wss?:\/\/\S+$/m);
    expect(printed).toMatch(/^Password:\s+\S+$/m);

    // --open serves a noVNC page on loopback and hands its address to $BROWSER; a stand-in browser
    // fetches the page, the noVNC module and the icon it links, then reloads the page; hostctl runs until Ctrl-C.
    const browser = join(home, 'browser.js');
    const standIn = async (page: string, report: string) => {
      const first = await fetch(page);
      const html = await first.text();
      const rfb = await fetch(new URL(/import RFB from "([^"]+)"/.exec(html)![1], page));
      const icon = await fetch(new URL(/<link rel="icon" href="([^"]+)"/.exec(html)![1], page));
      const ico = await fetch(new URL('/favicon.ico', page));
      const reload = await fetch(page);
      const seen = {
        page,
        html,
        rfb: rfb.status,
        type: rfb.headers.get('content-type'),
        icon: [icon.status, icon.headers.get('content-type'), (await icon.text()).slice(0, 4)],
        ico: [ico.status, ico.headers.get('content-type')],
        reload: [reload.status, await reload.text()],
      };
      // It runs as a script of its own (its source is written to a file), where require is at hand.
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      require('node:fs').writeFileSync(report, JSON.stringify(seen));
    };
    writeFileSync(
      browser,
      `#!${process.execPath}\n(${standIn.toString()})(process.argv[2], ${JSON.stringify(join(home, 'browser.json'))});\n`,
      { mode: 0o755 },
    );
    const opened = spawn(process.execPath, [HOSTCTL, 'vps', 'console', vpsId, '--open'], {
      env: { PATH: process.env.PATH, HOME: home, XDG_CONFIG_HOME: join(home, 'config'), HOSTCTL_URL: url, BROWSER: browser },
    });
    const exited = new Promise<number | null>((resolve) => opened.on('close', resolve));
    const seen = await waitForFile(join(home, 'browser.json'));
    opened.kill('SIGINT');
    expect(await exited).toBe(0);
    expect(seen).toMatchObject({
      page: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/[0-9a-f]{32}\/$/),
      rfb: 200,
      type: 'text/javascript',
      icon: [200, 'image/svg+xml', '<svg'],
      ico: [200, 'image/svg+xml'],
    });
    expect(seen.html).toMatch(/new RFB\(/);
    // The page connects to hostctl's own relay on its origin, which carries the session to the API.
    const pageOrigin = new URL(seen.page).host;
    expect(seen.html).toContain(`"url":"ws://${pageOrigin}${new URL(seen.page).pathname}websocket","password":"`);
    expect(seen.html).toContain('<title>web-1 - hostctl console</title>');
    // A lost or ended connection names the command that gives a new link.
    expect(seen.html).toContain(`"again":"hostctl vps console ${vpsId} --open"`);
    expect(seen.html).toContain("'. A console link connects once: run \"' + again + '\" for a new one.'");
    // The session connects once, so a reload is told so, and how to get another.
    const [reloadStatus, reloadHtml] = seen.reload;
    expect(reloadStatus).toBe(410);
    expect(reloadHtml).toContain('<h1>This console link has been used</h1>');
    expect(reloadHtml).toContain(`<code>hostctl vps console ${vpsId} --open</code>`);
    expect(reloadHtml).not.toContain('password');

    const credentials = (await ok(['storage', 'credentials', storageId, '-o', 'json'])).json;
    expect(credentials).toMatchObject({ bucket: expect.any(String), accessKeyId: expect.any(String), secretAccessKey: expect.any(String) });
    expect((await hostctl(['storage', 'credentials', vpsId])).code).toBe(1);
    const rotated = (await ok(['storage', 'rotate', storageId, '-o', 'json'])).json;
    expect(rotated).toMatchObject({ bucket: credentials.bucket, accessKeyId: expect.not.stringMatching(credentials.accessKeyId) });
    expect((await ok(['storage', 'buckets', storageId, '-o', 'json'])).json).toEqual([
      { name: credentials.bucket, sizeBytes: 0, objects: 0, createdAt: null },
    ]);
  });

  it('adds ~/.ssh/id_ed25519.pub by default, lists and deletes SSH keys; a duplicate is a 409', async () => {
    mkdirSync(join(home, '.ssh'));
    writeFileSync(join(home, '.ssh', 'id_ed25519.pub'), `${openSshEd25519()} me@laptop\n`);
    const added = (await ok(['ssh-keys', 'add', '-o', 'json'])).json;
    expect(added).toMatchObject({ name: 'me@laptop', type: 'ssh-ed25519', fingerprint: expect.stringMatching(/^SHA256:/) });
    const duplicate = await hostctl(['ssh-keys', 'add', '--name', 'again']);
    expect(duplicate.code).toBe(1);
    expect(duplicate.stderr).toMatch(/code: duplicate_key/);
    expect((await ok(['ssh-keys', 'list', '-o', 'json'])).json.map((k: { id: string }) => k.id)).toEqual([added.id]);
    await ok(['ssh-keys', 'delete', added.id]);
    expect((await ok(['ssh-keys', 'list', '-o', 'json'])).json).toEqual([]);
    expect((await hostctl(['ssh-keys', 'add', '--public-key-file', join(home, 'nope.pub')])).code).toBe(2);
  });

  it('opens a ticket with an attachment uploaded through presign, replies, shows and closes it', async () => {
    const log = Buffer.from('kernel: eth0 link down\n');
    writeFileSync(join(home, 'dmesg.log'), log);
    const ticket = (
      await ok([
        'tickets',
        'create',
        '--subject',
        'web-1 lost its network',
        '--message',
        'Log attached.',
        '--department',
        'technical',
        '--service',
        vpsId,
        '--attach',
        join(home, 'dmesg.log'),
        '-o',
        'json',
      ])
    ).json;
    expect(ticket).toMatchObject({ subject: 'web-1 lost its network', status: 'open', department: 'technical', serviceId: vpsId });
    const [attachment] = ticket.messages[0].attachments;
    expect(attachment).toMatchObject({ filename: 'dmesg.log', contentType: 'text/plain', size: log.length });
    expect(Buffer.from(await (await fetch(attachment.downloadUrl)).arrayBuffer())).toEqual(log);

    const reply = (await ok(['tickets', 'reply', ticket.id, '--message-file', '-', '-o', 'json'], { input: 'Still down.' })).json;
    expect(reply).toMatchObject({ message: 'Still down.', author: { type: 'customer' } });
    expect((await ok(['tickets', 'list', '--status', 'customer_reply', '-o', 'json'])).json.map((x: { id: string }) => x.id)).toEqual([
      ticket.id,
    ]);
    const shown = (await ok(['tickets', 'show', ticket.id])).stdout;
    expect(shown).toMatch(/^Status:\s+customer_reply$/m);
    expect(shown).toContain('Still down.');
    expect(shown).toContain('attachment: dmesg.log');

    expect((await ok(['tickets', 'close', ticket.id, '-o', 'json'])).json).toMatchObject({ id: ticket.id, status: 'closed' });
    const closed = await hostctl(['tickets', 'reply', ticket.id, '--message', 'one more thing']);
    expect(closed.code).toBe(1);
    expect(closed.stderr).toMatch(/code: ticket_closed/);
    expect((await hostctl(['tickets', 'create', '--subject', 'x', '--message', 'y', '--attach', join(home, 'virus.exe')])).code).toBe(2);
  });

  it('lists notifications, marks them read, and follows the stream with watch', async () => {
    const listed = (await ok(['notifications', 'list', '--unread', '-o', 'json'])).json;
    expect(listed.length).toBeGreaterThan(0);
    const read = (await ok(['notifications', 'read', listed[0].id, '-o', 'json'])).json;
    expect(read).toMatchObject({ id: listed[0].id, readAt: expect.any(String) });
    expect((await hostctl(['notifications', 'read'])).code).toBe(2);
    await ok(['notifications', 'read', '--all']);
    expect((await ok(['notifications', 'list', '--unread', '-o', 'json'])).json).toEqual([]);

    const watching = hostctl(['notifications', 'watch', '--limit', '1', '-o', 'json']);
    // Act once the child's stream is open on the server.
    await waitFor(
      async () => t.app.get(NotificationHub).listenerCount(account.id),
      (open) => open > 0,
      30_000,
    );
    await ok(['vps', 'reboot', vpsId, '--wait']);
    const watched = await watching;
    expect(watched.code).toBe(0);
    expect(JSON.parse(watched.stdout.trim())).toMatchObject({ type: 'instance_action_succeeded', entity: { type: 'service', id: vpsId } });
  });

  it('prints bash and zsh completion that completes subcommands', async () => {
    const bash = (await ok(['completion', 'bash'])).stdout;
    writeFileSync(join(home, 'completion.bash'), bash);
    const complete = (words: string) =>
      new Promise<string>((resolve) => {
        const script = `source ${JSON.stringify(join(home, 'completion.bash'))}; COMP_WORDS=(${words}); COMP_CWORD=$((\${#COMP_WORDS[@]}-1)); _hostctl; echo "\${COMPREPLY[*]}"`;
        const child = spawn('bash', ['-c', script]);
        let out = '';
        child.stdout.on('data', (chunk) => (out += chunk));
        child.on('close', () => resolve(out.trim()));
      });
    expect((await complete('hostctl vps ""')).split(' ')).toEqual(expect.arrayContaining(['start', 'stop', 'reboot', 'console']));
    expect((await complete('hostctl auth token r')).split(' ')).toEqual(['revoke']);
    expect((await complete('hostctl -o ""')).split(' ')).toEqual(['table', 'json', 'yaml']);
    expect((await ok(['completion', 'zsh'])).stdout).toMatch(
      /^# zsh completion[\s\S]*bashcompinit\n[\s\S]*complete -o default -F _hostctl hostctl/,
    );
  });

  it('logs out: the session ends on the server and the context forgets it', async () => {
    const before = JSON.parse(readFileSync(configFile(), 'utf8')).contexts.default;
    await ok(['auth', 'logout']);
    expect(JSON.parse(readFileSync(configFile(), 'utf8')).contexts.default).toEqual({ url });
    const ended = await hostctl(['services', 'list'], { env: { HOSTCTL_TOKEN: before.accessToken } });
    expect(ended.code).toBe(1);
    expect(ended.stderr).toMatch(/code: unauthorized/);
    expect((await hostctl(['services', 'list'])).code).toBe(2);
  });
});

async function waitForFile(path: string, timeoutMs = 15_000): Promise<any> {
  return waitForOrFail(
    async () => {
      try {
        return JSON.parse(readFileSync(path, 'utf8'));
      } catch {
        return undefined; // not written yet
      }
    },
    (value) => value !== undefined,
    timeoutMs,
    () => `${path} was not written within ${timeoutMs} ms`,
  );
}

/** A fresh OpenSSH ed25519 public key line (`ssh-ed25519 AAAA...`). */
function openSshEd25519(): string {
  const der = generateKeyPairSync('ed25519').publicKey.export({ format: 'der', type: 'spki' });
  const field = (data: Buffer) => Buffer.concat([Buffer.from([0, 0, 0, data.length]), data]);
  return `ssh-ed25519 ${Buffer.concat([field(Buffer.from('ssh-ed25519')), field(der.subarray(-32))]).toString('base64')}`;
}
