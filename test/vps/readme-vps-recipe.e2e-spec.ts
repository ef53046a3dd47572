import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { makeKeyPair } from '../support/guest';
import { testImageFile } from '../support/test-images';
import { domainNames, libvirtTestsEnabled, removeDomain, virsh } from '../support/libvirt';
import { freePort } from '../support/server-process';
import { RUN_DATABASE_URL } from '../support/test-env';
import { waitFor, waitForOrFail } from '../support/wait-for';

/**
 * The recipe from a fresh clone to `ssh root@` and its day two (in docs/operations/real-vpses.md,
 * one click from the README), line by line as written, in a shell as a newcomer's: the embedded
 * database, no test configuration. Only what cannot run here is swapped, each swap checked to be in
 * the recipe: the download (the test image is the file), the newcomer's own key, data directory and
 * known_hosts and the rescue image's file (the test's temporary ones), and the API's port (a free
 * one). It boots one guest and restores and rescues it, so it runs in the PostgreSQL pass only (it
 * uses the embedded database either way).
 */
const ROOT = join(__dirname, '../..');
const enabled = RUN_DATABASE_URL !== undefined && libvirtTestsEnabled();
if (!RUN_DATABASE_URL) process.stderr.write('Skipping the VPS recipe on PGlite: it runs in the PostgreSQL pass.\n');
// A boot on a loaded CI machine took 100-180 s; a restore's once went past 300 s (one run in many).
const BOOT_MS = 480_000;
const RECIPE = 'docs/operations/real-vpses.md';

function recipeLines(name: string): string[] {
  const doc = readFileSync(join(ROOT, RECIPE), 'utf8');
  const block = new RegExp(`<!-- recipe:${name}:start -->\\n\`\`\`sh\\n([\\s\\S]*?)\`\`\`\\n<!-- recipe:${name}:end -->`).exec(doc);
  if (!block) throw new Error(`${RECIPE} has no recipe:${name} block`);
  return block[1].split('\n').filter((line) => line.trim() && !line.startsWith('#'));
}

/** ssh's own refusal of a host key: waiting would not help. */
const HOST_KEY_REFUSED = /REMOTE HOST IDENTIFICATION HAS CHANGED|Host key verification failed/;

const tail = (text: string, lines: number): string => text.trim().split('\n').slice(-lines).join('\n');

function swap(line: string, from: string, to: string): string {
  return line.includes(from) ? line.split(from).join(to) : line;
}

(enabled ? describe : describe.skip)('The VPS recipe, as written', () => {
  // Made when the suite runs: a skipped describe's body runs too, and nothing of it cleans up.
  let dir: string;
  let key: string;
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    // Not the ports of the other libvirt suites, which may run beside this one.
    NETWORK_SSH_PORTS: '24000-24099',
  };
  let server: ChildProcess | undefined;
  let serverOutput = '';
  let port: number;
  let vps: { id: string; name: string; instance: { ssh: { host: string; port: number } } } | undefined;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'recipe-'));
    key = join(dir, 'id_ed25519');
    // hostctl's config and known_hosts: the newcomer's ~/.config/hostctl, here the test's folder.
    env.XDG_CONFIG_HOME = join(dir, 'config');
    port = await freePort();
  });

  afterAll(async () => {
    if (server?.pid) process.kill(-server.pid, 'SIGKILL');
    if (vps) await removeDomain(`svc-${vps.id}`).catch(() => undefined);
    for (const file of ['vps.json', 'backup.json']) rmSync(join(ROOT, file), { force: true });
    rmSync(dir, { recursive: true, force: true });
  });

  it(
    'goes from a fresh clone to a shell on the VPS, shows it in the API, backs it up, restores and rescues it with hostctl, and removes it',
    async () => {
      makeKeyPair(key, 'newcomer');
      const image = testImageFile();
      const swaps: [string, string][] = [
        ['debian-12-genericcloud-amd64.qcow2', image],
        ['~/.ssh/id_ed25519.pub', `${key}.pub`],
        ['DATA_DIR=./data/vps', `DATA_DIR=${join(dir, 'data')}`],
        ['~/.ssh/known_hosts', join(dir, 'known_hosts')],
        ['http://127.0.0.1:3000', `http://127.0.0.1:${port}`],
        ['npx hostctl ssh ', `npx hostctl ssh -i ${key} `],
        ['sudo bash scripts/make-rescue-image.sh', 'bash scripts/make-rescue-image.sh'],
        ['rescue.qcow2', join(dir, 'rescue.qcow2')],
      ];
      const [first, dayTwo, done] = ['vps', 'vps-day-two', 'vps-done'].map(recipeLines);
      const lines = [...first, ...dayTwo, ...done];
      for (const [from] of swaps) expect({ from, inRecipe: lines.some((l) => l.includes(from)) }).toEqual({ from, inRecipe: true });

      const ran: string[] = [];
      const sshAnswers: string[] = [];
      for (const written of lines) {
        if (written === done[0]) await stopTheServer(); // "When done, stop the server (Ctrl-C)"
        const line = swaps.reduce((l, [from, to]) => swap(l, from, to), written);
        if (/^(sudo apt-get|curl) /.test(line)) continue; // installed by .ci/run; the image is the test image
        if (line.startsWith('export ')) {
          for (const [, name, value] of line.matchAll(/(\w+)=(\S+)/g)) env[name] = value;
        } else if (line.startsWith('ssh ')) {
          await logIn(line);
        } else if (line === 'npm start') {
          await startTheApi();
        } else if (line.startsWith('npx hostctl ssh ')) {
          sshAnswers.push(await hostctlSsh(line));
        } else if (line.startsWith('npx hostctl vps rescue ')) {
          // On a terminal, as a person runs it (on a pipe hostctl keeps the password back): printed once.
          expect(shell(`script -qec ${JSON.stringify(line)} /dev/null`)).toMatch(/Root password[\s\S]*\b[A-HJ-NP-Za-km-z2-9]{20}\b/);
        } else {
          shell(line);
        }
        ran.push(written);
      }
      expect(ran.length).toBe(lines.length - 2);
      expect(vps).toBeDefined();
      // Restored from the backup: the file written before it is there, the one written after is not,
      // and the VPS answered with the host key hostctl wrote before the restore. The rescue system,
      // with a key of its own, read the VPS's disk; then the VPS answered with its own key again.
      expect(sshAnswers.slice(2).map((answer) => answer.split('\n'))).toEqual([['kept'], ['rescue', 'kept'], ['web-01']]);
      // Terminated: the machine and its volumes are gone, and so is the image.
      expect(await domainNames()).not.toContain(`svc-${vps!.id}`);
      const volumes = await virsh('vol-list', 'default');
      expect(volumes).not.toContain(`svc-${vps!.id}`);
    },
    25 * 60_000,
  );

  function shell(line: string): string {
    const out = execFileSync('bash', ['-eo', 'pipefail', '-c', line], {
      cwd: ROOT,
      env,
      encoding: 'utf8',
      timeout: 10 * 60_000,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    if (line.includes('service:provision')) {
      vps = JSON.parse(readFileSync(join(ROOT, 'vps.json'), 'utf8'));
      expect(vps).toMatchObject({ type: 'vps', status: 'active', instance: { powerState: 'running', ssh: { host: '127.0.0.1' } } });
    }
    return out;
  }

  /**
   * The recipe's ssh line, with the test's key and the known_hosts the recipe wrote (ssh reads ~ from
   * the passwd entry, not $HOME): in batch mode ssh refuses a host key it does not find there.
   */
  async function logIn(line: string): Promise<void> {
    const options = `-i ${key} -o UserKnownHostsFile=${join(dir, 'known_hosts')} -o StrictHostKeyChecking=yes -o BatchMode=yes -o ConnectTimeout=10`;
    const command = `${line.replace(/^ssh /, `ssh ${options} `)} hostname`;
    const answer = await waitFor(
      async () => {
        try {
          return shell(command).trim();
        } catch {
          await new Promise((resolve) => setTimeout(resolve, 3000));
          return '';
        }
      },
      (hostname) => hostname !== '',
      BOOT_MS,
    );
    expect(answer).toBe(vps!.name);
  }

  /**
   * `hostctl ssh` until the VPS answers (its sshd comes up a while after a boot or restore); ssh
   * refusing the host key fails at once.
   */
  async function hostctlSsh(line: string): Promise<string> {
    let refused = '';
    let lastError = '';
    const answer = await waitForOrFail(
      async () => {
        try {
          return shell(line).trim() || 'ok';
        } catch (err) {
          const stderr = String((err as { stderr?: string }).stderr ?? '');
          lastError = stderr.trim().split('\n').slice(-3).join(' | ');
          if (HOST_KEY_REFUSED.test(stderr)) refused = stderr;
          else await new Promise((resolve) => setTimeout(resolve, 3000));
          return refused ? 'refused' : '';
        }
      },
      (out) => out !== '',
      BOOT_MS,
      // What hostctl and the server said last: the guest's boot, or the API hostctl asks first.
      () => `${line}: no answer in ${BOOT_MS / 1000} s; hostctl: ${lastError}\nthe server's last lines:\n${tail(serverOutput, 15)}`,
    );
    expect(refused).toBe('');
    return answer;
  }

  async function startTheApi(): Promise<void> {
    // Its own process group: Ctrl-C on a terminal reaches npm and the server alike.
    server = spawn('npm', ['start'], { cwd: ROOT, env: { ...env, PORT: String(port) }, detached: true });
    serverOutput = '';
    server.stdout!.on('data', (chunk) => (serverOutput += chunk));
    server.stderr!.on('data', (chunk) => (serverOutput += chunk));
    const listening = await waitFor(async () => serverOutput.includes('API listening') || server!.exitCode !== null, Boolean, 120_000);
    expect({ listening, exitCode: server.exitCode }).toEqual({ listening: true, exitCode: null });
    const api = `http://127.0.0.1:${port}`;
    const login = await request(api)
      .post('/api/auth/login')
      .send({ email: 'me@example.com', password: 'a long enough password' })
      .expect(200);
    const listed = await request(api).get('/api/services').set('Authorization', `Bearer ${login.body.accessToken}`).expect(200);
    expect(listed.body.data).toEqual([
      expect.objectContaining({ id: vps!.id, instance: expect.objectContaining({ powerState: 'running', ssh: vps!.instance.ssh }) }),
    ]);
  }

  async function stopTheServer(): Promise<void> {
    expect(server).toBeDefined();
    const stopped = new Promise((resolve) => server!.once('exit', resolve));
    process.kill(-server!.pid!, 'SIGINT');
    await stopped;
    server = undefined;
    expect(existsSync(join(dir, 'data'))).toBe(true);
  }
});
