import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createAccount, TestAccount } from '../factories/accounts';
import { createService } from '../factories/services';
import { HOSTCTL } from '../support/hostctl';
import { startTestApp, TestApp } from '../support/test-app';

const GUIDE = join(__dirname, '../../docs/guides/firewall-web-server.md');
const available = (tool: string) => {
  try {
    execFileSync('sh', ['-c', `command -v ${tool}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
};
// In CI (CI set) it runs, and fails without them.
const curlAndJq = (available('curl') && available('jq')) || !!process.env.CI;
if (!curlAndJq) process.stderr.write('Skipping the firewall guide with curl: it needs curl and jq on PATH.\n');

/** A block of the guide between its markers, as written. */
function block(name: string): string {
  const found = new RegExp(`<!-- guide:${name}:start -->\n\`\`\`sh\n([\\s\\S]*?)\`\`\`\n<!-- guide:${name}:end -->`).exec(
    readFileSync(GUIDE, 'utf8'),
  );
  if (!found) throw new Error(`${GUIDE} has no ${name} block`);
  return found[1];
}

/**
 * docs/guides/firewall-web-server.md (issue 52), run as written in bash against the whole API:
 * its hostctl block with hostctl on PATH, its curl block with only the address and the key
 * swapped. Each on a VPS named web-01 of a fresh account.
 */
describe('The firewall guide, as written', () => {
  let t: TestApp;
  let url: string;
  let dir: string;

  beforeAll(async () => {
    t = await startTestApp();
    url = `http://127.0.0.1:${(t.http.address() as AddressInfo).port}`;
    dir = mkdtempSync(join(tmpdir(), 'firewall-guide-'));
    mkdirSync(join(dir, 'bin'));
    writeFileSync(join(dir, 'bin/hostctl'), `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(HOSTCTL)} "$@"\n`);
    chmodSync(join(dir, 'bin/hostctl'), 0o755);
  });
  afterAll(async () => {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function customer(): Promise<{ account: TestAccount; vpsId: string }> {
    const account = await createAccount(t);
    const vpsId = (await createService(t, account.id, { type: 'vps', name: 'web-01' })).id;
    return { account, vpsId };
  }

  function bash(script: string, env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
    return new Promise((resolve, reject) => {
      // stdin not a socket: bash would read /etc/bash.bashrc, as it does for a command over ssh.
      const child = spawn('bash', ['-euo', 'pipefail', '-c', script], {
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { PATH: `${join(dir, 'bin')}:${process.env.PATH}`, HOME: dir, XDG_CONFIG_HOME: join(dir, 'config'), ...env },
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk) => (stdout += chunk));
      child.stderr.on('data', (chunk) => (stderr += chunk));
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, stdout, stderr }));
    });
  }

  async function activity(account: TestAccount): Promise<string[]> {
    const events = (await t.get('/api/events?entityType=firewall&pageSize=100', account.bearer).expect(200)).body.data;
    return events.map((e: { action: string }) => e.action).reverse();
  }

  const STEPS = ['firewall.create', 'firewall.apply', 'firewall.update', 'firewall.remove', 'firewall.delete'];

  it('runs the hostctl walk-through: create, apply and wait, check, open a port, remove and delete', async () => {
    const { account, vpsId } = await customer();
    const run = await bash(block('firewall-hostctl'), { HOSTCTL_URL: url, HOSTCTL_TOKEN: account.apiKey });
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
    expect(run.stdout).toContain('Firewall web applied to web-01 (applied)\n');
    expect(run.stdout).toMatch(new RegExp(`^web-01\\s+${vpsId}\\s+applied$`, 'm'));
    expect(run.stdout).toMatch(/^Firewalls:\s+web \(applied\)$/m);
    expect(run.stdout).toMatch(/^in\s+tcp\s+8080\s+203\.0\.113\.0\/24\s+staging$/m);
    expect(run.stdout).toMatch(/Firewall web removed from web-01\nFirewall web deleted\n$/);
    expect(await activity(account)).toEqual(STEPS);
    expect((await t.get('/api/firewalls', account.bearer).expect(200)).body.total).toBe(0);
  });

  (curlAndJq ? it : it.skip)('runs the curl walk-through with the address and the key swapped in', async () => {
    const { account, vpsId } = await customer();
    const script = block('firewall-curl');
    for (const line of ['API=https://api.hosting.example\n', 'TOKEN=hpk_...\n']) expect(script).toContain(line);
    const swapped = script
      .replace('API=https://api.hosting.example\n', `API=${url}\n`)
      .replace('TOKEN=hpk_...\n', `TOKEN=${account.apiKey}\n`);
    const run = await bash(swapped, {});
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
    expect(run.stdout.split('\n')).toEqual([
      expect.stringMatching(new RegExp(`^\\[\\{"serviceId":"${vpsId}","status":"(pending|applied)"\\}\\]$`)),
      expect.stringMatching(/^\[\{"id":"[0-9a-f-]{36}","name":"web","status":"applied"\}\]$/),
      '["tcp","22",["0.0.0.0/0","::/0"]]',
      '["tcp","80",["0.0.0.0/0","::/0"]]',
      '["tcp","443",["0.0.0.0/0","::/0"]]',
      '["icmp",null,["0.0.0.0/0","::/0"]]',
      '["tcp","8080",["203.0.113.0/24"]]',
      '[]',
      '',
    ]);
    expect(await activity(account)).toEqual(STEPS);
    expect((await t.get('/api/firewalls', account.bearer).expect(200)).body.total).toBe(0);
  });
});
