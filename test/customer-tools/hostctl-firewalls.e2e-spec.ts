import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ComputeProvider, ComputeProviderError } from '@app/vps';
import { createAccount, TestAccount } from '../factories/accounts';
import { createService } from '../factories/services';
import { HostctlRun, runHostctl } from '../support/hostctl';
import { startTestApp, TestApp } from '../support/test-app';

const EVERYWHERE = ['0.0.0.0/0', '::/0'];

/**
 * `hostctl firewall` (issue 52) as a customer runs it, against the whole API on the test database:
 * rules in the compact syntax and from a file, firewalls and VPSes by name, --wait until the
 * hypervisor enforces the rules, and the API's refusals. Steps share one account and run in order.
 */
describe('hostctl firewall', () => {
  let t: TestApp;
  let home: string;
  let url: string;
  let account: TestAccount;
  let web1: string;
  let web2: string;
  // Applied in one request, the two attachments share their time; the API orders them by service id.
  const appliedInOrder = () => [web1, web2].sort();

  const hostctl = (args: string[], env: Record<string, string | undefined> = {}): Promise<HostctlRun> =>
    runHostctl(args, { home, env: { HOSTCTL_URL: url, HOSTCTL_TOKEN: account.apiKey, ...env } });

  async function ok(args: string[]): Promise<HostctlRun> {
    const run = await hostctl(args);
    if (run.code !== 0) throw new Error(`hostctl ${args.join(' ')} exited ${run.code}: ${run.stderr}`);
    return run;
  }

  const firewalls = async () => (await t.get('/api/firewalls', account.bearer).expect(200)).body.data as { id: string; name: string }[];

  beforeAll(async () => {
    t = await startTestApp();
    url = `http://127.0.0.1:${(t.http.address() as AddressInfo).port}`;
    home = mkdtempSync(join(tmpdir(), 'hostctl-firewall-'));
    account = await createAccount(t);
    web1 = (await createService(t, account.id, { type: 'vps', name: 'web-01' })).id;
    web2 = (await createService(t, account.id, { type: 'vps', name: 'web-02' })).id;
  });
  afterAll(async () => {
    await t.close();
    rmSync(home, { recursive: true, force: true });
  });

  it('creates a firewall from --rule options, shown as a table of its rules, or as the API object with -o json', async () => {
    const created = await ok([
      'firewall',
      'create',
      '--name',
      'web',
      '--rule',
      'in tcp 22',
      '--rule',
      'in tcp 80 0.0.0.0/0,::/0',
      '--rule',
      'in tcp 443',
      '--rule',
      'in icmp # ping',
    ]);
    expect(created.stdout).toMatch(/^Name:\s+web$/m);
    expect(created.stdout).toMatch(/^Rules:\nDIRECTION\s+PROTOCOL\s+PORT\s+ADDRESSES\s+DESCRIPTION\n/m);
    expect(created.stdout).toMatch(/^in\s+tcp\s+22\s+0\.0\.0\.0\/0,::\/0\s+-$/m);
    expect(created.stdout).toMatch(/^in\s+icmp\s+-\s+0\.0\.0\.0\/0,::\/0\s+ping$/m);
    expect(created.stdout).toMatch(/^Applied to:\nno VPS$/m);

    const [web] = await firewalls();
    const shown = (await ok(['firewall', 'get', 'web', '-o', 'json'])).json;
    expect(shown).toEqual((await t.get(`/api/firewalls/${web.id}`, account.bearer).expect(200)).body);
    expect(shown.rules).toEqual([
      { direction: 'in', protocol: 'tcp', port: '22', addresses: EVERYWHERE },
      { direction: 'in', protocol: 'tcp', port: '80', addresses: EVERYWHERE },
      { direction: 'in', protocol: 'tcp', port: '443', addresses: EVERYWHERE },
      { direction: 'in', protocol: 'icmp', addresses: EVERYWHERE, description: 'ping' },
    ]);
    expect((await ok(['firewall', 'get', web.id, '-o', 'json'])).json.id).toBe(web.id);
  });

  it('creates one from a rules file: YAML lines, or what "firewall get -o json" printed', async () => {
    writeFileSync(
      join(home, 'db.yaml'),
      '- "in tcp 5432 10.0.0.0/8 # app servers"\n- direction: in\n  protocol: icmp\n  addresses: ["10.0.0.0/8"]\n',
    );
    const db = (
      await ok(['firewall', 'create', '--name', 'db', '--rules-file', join(home, 'db.yaml'), '--rule', 'in tcp 22', '-o', 'json'])
    ).json;
    expect(db.rules.map((r: { port?: string; protocol: string }) => r.port ?? r.protocol)).toEqual(['5432', 'icmp', '22']);
    expect(db.rules[0]).toEqual({ direction: 'in', protocol: 'tcp', port: '5432', addresses: ['10.0.0.0/8'], description: 'app servers' });

    writeFileSync(join(home, 'web.json'), (await ok(['firewall', 'get', 'web', '-o', 'json'])).stdout);
    const copy = (await ok(['firewall', 'create', '--name', 'web-copy', '--rules-file', join(home, 'web.json'), '-o', 'json'])).json;
    expect(copy.rules).toEqual((await ok(['firewall', 'get', 'web', '-o', 'json'])).json.rules);
    expect((await ok(['firewall', 'delete', 'web-copy'])).stdout).toBe('Firewall web-copy deleted\n');
  });

  it('refuses a rule it cannot read with exit 2 before any request, and passes on the API refusal naming the rule', async () => {
    for (const rule of ['tcp 22', 'in gre', 'in tcp ssh']) {
      const run = await hostctl(['firewall', 'create', '--name', 'bad', '--rule', 'in tcp 22', '--rule', rule]);
      expect({ rule, code: run.code, stdout: run.stdout }).toEqual({ rule, code: 2, stdout: '' });
      expect(run.stderr).toContain(`rule "${rule}": `);
    }
    const refused = await hostctl(['firewall', 'create', '--name', 'bad', '--rule', 'in tcp 22', '--rule', 'in tcp 80 10.0.0.1/8']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^ {2}rules\[1\]\.addresses\[0\]: "10\.0\.0\.1\/8" has host bits set; the network is 10\.0\.0\.0\/8$/m);
    expect(refused.stderr).toMatch(/status: 400\n\s+code: invalid_input/);
    const asJson = await hostctl(['firewall', 'create', '--name', 'bad', '--rule', 'in icmp 22', '-o', 'json']);
    expect(JSON.parse(asJson.stderr)).toMatchObject({
      code: 'invalid_input',
      status: 400,
      errors: [{ field: 'rules[0].port' }],
      exitCode: 1,
    });

    const twice = await hostctl(['firewall', 'create', '--name', 'web']);
    expect(twice.code).toBe(1);
    expect(twice.stderr).toMatch(/status: 409\n\s+code: duplicate_name/);
    expect((await firewalls()).map((f) => f.name).sort()).toEqual(['db', 'web']);
  });

  it('lists firewalls as a table and as JSON, and answers an unknown name with exit 1', async () => {
    const table = (await ok(['firewall', 'list'])).stdout.split('\n');
    expect(table[0]).toMatch(/^ID\s+NAME\s+RULES\s+APPLIED TO\s+STATUS\s+CREATED$/);
    expect(table.some((line) => /^\S+\s+web\s+4\s+0\s+-\s+\S+$/.test(line))).toBe(true);
    expect((await ok(['firewall', 'list', '-o', 'json'])).json.map((f: { name: string }) => f.name)).toEqual(['db', 'web']);

    const unknown = await hostctl(['firewall', 'get', 'mail']);
    expect({ code: unknown.code, stderr: unknown.stderr }).toEqual({
      code: 1,
      stderr: 'Error: no firewall named "mail" in this account ("hostctl firewall list" shows names and ids)\n',
    });
  });

  it('applies a firewall to VPSes by name and waits until their hypervisor enforces it; the VPS shows it', async () => {
    const applied = await ok(['firewall', 'apply', 'web', 'web-01', web2, '--wait']);
    expect(applied.stdout).toBe(`Firewall web applied to web-01 (applied), ${web2} (applied)\n`);
    const shown = (await ok(['firewall', 'get', 'web'])).stdout;
    expect(shown).toMatch(/^Applied to:\nVPS\s+ID\s+STATUS\n/m);
    expect(shown).toMatch(new RegExp(`^web-01\\s+${web1}\\s+applied$`, 'm'));
    expect(shown).toMatch(new RegExp(`^web-02\\s+${web2}\\s+applied$`, 'm'));
    expect((await ok(['services', 'get', 'web-01'])).stdout).toMatch(/^Firewalls:\s+web \(applied\)$/m);
    expect((await ok(['firewall', 'list'])).stdout).toMatch(/\s+web\s+4\s+2\s+applied\s+/);
    const coloured = await runHostctl(['firewall', 'list'], { home, tty: true, env: { HOSTCTL_URL: url, HOSTCTL_TOKEN: account.apiKey } });
    expect(coloured.stdout).toContain('\u001b[32mapplied\u001b[39m');

    const json = (await ok(['firewall', 'apply', 'db', 'web-01', 'web-01', '-o', 'json'])).json;
    expect(json).toMatchObject({ name: 'db', appliedTo: [{ serviceId: web1, status: expect.stringMatching(/^(pending|applied)$/) }] });
  });

  it("refuses a VPS in user networking (409), another account's VPS (404) and a name no VPS has", async () => {
    const user = await createService(t, account.id, { type: 'vps', name: 'user-net' });
    await t.db.query(`UPDATE vps_instances SET network = $2::jsonb WHERE service_id = $1`, [
      user.id,
      JSON.stringify({ mode: 'user', mac: '52:54:00:00:00:09', sshHost: '127.0.0.1', sshPort: 22009 }),
    ]);
    const userNet = await hostctl(['firewall', 'apply', 'web', 'user-net']);
    expect(userNet.code).toBe(1);
    expect(userNet.stderr).toMatch(/user networking[\s\S]*status: 409\n\s+code: unsupported_network_mode/);

    const stranger = await createAccount(t);
    const theirs = await createService(t, stranger.id, { type: 'vps' });
    const notMine = await hostctl(['firewall', 'apply', 'web', theirs.id]);
    expect(notMine.code).toBe(1);
    expect(notMine.stderr).toMatch(/status: 404\n\s+code: not_found/);
    const noSuch = await hostctl(['firewall', 'apply', 'web', 'web-03']);
    expect({ code: noSuch.code, stderr: noSuch.stderr }).toEqual({
      code: 1,
      stderr: 'Error: no VPS named "web-03" in this account ("hostctl services list" shows names and ids)\n',
    });
    const strangers = await runHostctl(['firewall', 'get', (await firewalls())[0].id], {
      home,
      env: { HOSTCTL_URL: url, HOSTCTL_TOKEN: stranger.apiKey },
    });
    expect(strangers.stderr).toMatch(/status: 404\n\s+code: not_found/);
  });

  it('adds, deletes and replaces rules, waiting until every VPS enforces them; the rules list goes back in as a file', async () => {
    const added = await ok(['firewall', 'rules', 'add', 'web', '--rule', 'in tcp 8080', '--wait']);
    expect(added.stdout).toMatch(/^in\s+tcp\s+8080\s+0\.0\.0\.0\/0,::\/0\s+-$/m);
    expect(added.stdout).not.toMatch(/pending/);
    const rules = (await ok(['firewall', 'rules', 'list', 'web', '-o', 'json'])).json;
    expect(rules.map((r: { port?: string }) => r.port ?? 'icmp')).toEqual(['22', '80', '443', 'icmp', '8080']);

    const notThere = await hostctl(['firewall', 'rules', 'delete', 'web', '--rule', 'in tcp 8080 10.0.0.0/8']);
    expect(notThere.code).toBe(1);
    expect(notThere.stderr).toContain('firewall web has no rule "in tcp 8080 10.0.0.0/8" ("hostctl firewall rules list web" shows them)');
    await ok(['firewall', 'rules', 'delete', 'web', '--rule', 'in tcp 8080', '--rule', 'in tcp 80 any']);
    expect((await ok(['firewall', 'rules', 'list', 'web', '-o', 'json'])).json.map((r: { port?: string }) => r.port ?? 'icmp')).toEqual([
      '22',
      '443',
      'icmp',
    ]);

    writeFileSync(join(home, 'rules.json'), JSON.stringify(rules));
    const set = (await ok(['firewall', 'rules', 'set', 'web', '--rules-file', join(home, 'rules.json'), '--wait', '-o', 'json'])).json;
    expect(set.rules).toEqual(rules);
    expect(set.appliedTo).toEqual(appliedInOrder().map((serviceId) => ({ serviceId, status: 'applied' })));
    const none = await hostctl(['firewall', 'rules', 'set', 'web']);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('give the new rules with --rule or --rules-file');
  });

  it('gives up --wait after --timeout with exit 1 while a hypervisor cannot enforce the rules, naming the VPS', async () => {
    const down = jest
      .spyOn(t.app.get(ComputeProvider), 'applyFirewalls')
      .mockRejectedValue(new ComputeProviderError('hypervisor_unavailable', 'the host does not answer', true));
    try {
      const run = await hostctl(['firewall', 'rules', 'add', 'web', '--rule', 'in udp 51820', '--wait', '--timeout', '3']);
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(
        new RegExp(
          `^Error: Firewall \\S+ \\(web\\) not enforced after 3000 ms on ${appliedInOrder()[0]} \\((pending|failed, retried)\\), ${appliedInOrder()[1]} `,
        ),
      );
      expect(run.stderr).toContain('The API goes on trying; "hostctl firewall get web" shows each VPS\'s status.');
      const asJson = await hostctl([
        'firewall',
        'rules',
        'delete',
        'web',
        '--rule',
        'in udp 51820',
        '--wait',
        '--timeout',
        '1',
        '-o',
        'json',
      ]);
      expect(asJson.stdout).toBe('');
      expect(JSON.parse(asJson.stderr)).toMatchObject({
        code: 'timeout',
        status: null,
        exitCode: 1,
        hint: expect.stringContaining('firewall get web'),
      });
    } finally {
      down.mockRestore();
    }
    // The API retries with backoff; a later --wait sees the rules enforced.
    expect((await ok(['firewall', 'apply', 'web', 'web-01', '--wait', '--timeout', '60'])).stdout).toBe(
      'Firewall web applied to web-01 (applied)\n',
    );
  }, 90_000);

  it('renames, refuses to delete a firewall in use, removes it from its VPSes and deletes it', async () => {
    expect((await ok(['firewall', 'rename', 'db', 'database'])).stdout).toBe('Firewall db renamed to database\n');
    const inUse = await hostctl(['firewall', 'delete', 'web']);
    expect(inUse.code).toBe(1);
    expect(inUse.stderr).toMatch(/remove it from them first[\s\S]*status: 409\n\s+code: firewall_in_use/);

    expect((await ok(['firewall', 'remove', 'web', 'web-01', web2])).stdout).toBe(`Firewall web removed from web-01, ${web2}\n`);
    expect((await ok(['services', 'get', 'web-01'])).stdout).toMatch(/^Firewalls:\s+database \(\w+\)$/m);
    await ok(['firewall', 'remove', 'database', 'web-01']);
    expect((await ok(['services', 'get', 'web-01'])).stdout).toMatch(/^Firewalls:\s+-$/m);
    expect((await ok(['firewall', 'delete', 'web', '-o', 'json'])).json).toEqual({ id: expect.any(String), deleted: true });
    await ok(['firewalls', 'delete', 'database']);
    expect(await firewalls()).toEqual([]);
    const events = (await t.get('/api/events?entityType=firewall&pageSize=100', account.bearer).expect(200)).body.data;
    expect(events.every((e: { userAgent: string }) => e.userAgent.startsWith('hostctl/'))).toBe(true);
  });

  it('needs the write scope for changes, and completes the firewall commands in bash', async () => {
    const reader = await createAccount(t, { scopes: ['read'] });
    const refused = await hostctl(['firewall', 'create', '--name', 'x'], { HOSTCTL_TOKEN: reader.apiKey });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/status: 403\n\s+code: insufficient_scope/);
    expect((await hostctl(['firewall', 'list', '-o', 'json'], { HOSTCTL_TOKEN: reader.apiKey })).json).toEqual([]);

    writeFileSync(join(home, 'completion.bash'), (await ok(['completion', 'bash'])).stdout);
    const complete = (words: string) =>
      new Promise<string>((resolve) => {
        const script = `source ${JSON.stringify(join(home, 'completion.bash'))}; COMP_WORDS=(${words}); COMP_CWORD=$((\${#COMP_WORDS[@]}-1)); _hostctl; echo "\${COMPREPLY[*]}"`;
        const child = spawn('bash', ['-c', script]);
        let out = '';
        child.stdout.on('data', (chunk) => (out += chunk));
        child.on('close', () => resolve(out.trim()));
      });
    expect((await complete('hostctl f')).split(' ')).toEqual(['firewall']);
    expect((await complete('hostctl firewall ""')).split(' ')).toEqual(
      expect.arrayContaining(['create', 'list', 'get', 'rules', 'rename', 'delete', 'apply', 'remove']),
    );
    expect((await complete('hostctl firewall rules ""')).split(' ')).toEqual(expect.arrayContaining(['list', 'set', 'add', 'delete']));
    expect((await complete('hostctl firewall apply --w')).split(' ')).toEqual(['--wait']);
  });
});
