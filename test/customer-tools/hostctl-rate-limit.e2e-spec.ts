import { mkdtempSync, rmSync } from 'node:fs';
import { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createAccount, TestAccount } from '../factories/accounts';
import { runHostctl, startHostctl } from '../support/hostctl';
import { startTestApp, TestApp } from '../support/test-app';
import { waitForOrFail } from '../support/wait-for';

/**
 * hostctl when the API answers 429: it says it waits (a countdown on a terminal), or with
 * --no-wait-rate-limit fails at once. One new ticket a minute makes the second `tickets create` a 429
 * whose Retry-After is the rest of that minute.
 */
describe('hostctl when rate limited', () => {
  let t: TestApp;
  let home: string;
  let account: TestAccount;
  let env: Record<string, string>;
  const create = ['tickets', 'create', '--subject', 'Disk full', '--message', 'web-1 is out of disk space.'];

  beforeAll(async () => {
    t = await startTestApp({ RATE_LIMIT_TICKET_CREATE_PER_MINUTE: '1' });
    home = mkdtempSync(join(tmpdir(), 'hostctl-429-'));
    account = await createAccount(t);
    env = { HOSTCTL_URL: `http://127.0.0.1:${(t.http.address() as AddressInfo).port}`, HOSTCTL_TOKEN: account.apiKey };
  });
  afterAll(async () => {
    await t.close();
    rmSync(home, { recursive: true, force: true });
  });

  /** Runs until `done(output)` holds, then stops hostctl (Ctrl-C) and returns what it wrote. */
  async function until(args: string[], tty: boolean, done: (output: string) => boolean): Promise<string> {
    const run = startHostctl(args, { home, env, tty });
    const closed = new Promise((resolve) => run.child.on('close', resolve));
    const output = () => (tty ? run.stdout() : run.stderr());
    try {
      return await waitForOrFail(
        async () => output(),
        done,
        20_000,
        (last) => `hostctl wrote:\n${last}`,
      );
    } finally {
      run.child.kill('SIGINT');
      await closed;
    }
  }

  it('with --no-wait-rate-limit, exits 1 at once with the API problem', async () => {
    expect((await runHostctl([...create, '-o', 'json'], { home, env })).code).toBe(0);
    const refused = await runHostctl(['--no-wait-rate-limit', ...create], { home, env });
    expect(refused.code).toBe(1);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toMatch(
      /^Error: Too many requests\. Retry in \d+ seconds\.\n\s+status: 429\n\s+code: rate_limited\n\s+request id: \S+\n$/,
    );
  });

  it('otherwise says on stderr that it waits, and for how long', async () => {
    const said = await until(create, false, (text) => /rate limited/.test(text));
    const [line, seconds] = /^rate limited, retrying in (\d+) s$/m.exec(said) ?? [];
    expect(line).toBeDefined();
    expect(Number(seconds)).toBeGreaterThanOrEqual(1);
    expect(Number(seconds)).toBeLessThanOrEqual(60);
  });

  it('on a terminal, counts the seconds down on one line', async () => {
    const countdown = /\rrate limited, retrying in (\d+) s \(Ctrl-C to stop\)\u001b\[K/g;
    const screen = await until(create, true, (text) => new Set([...text.matchAll(countdown)].map((m) => m[1])).size >= 2);
    const seconds = [...screen.matchAll(countdown)].map((m) => Number(m[1]));
    expect(seconds[1]).toBe(seconds[0] - 1);
    expect(screen).not.toMatch(/retrying in \d+ s\r?\n/);
  });
});
