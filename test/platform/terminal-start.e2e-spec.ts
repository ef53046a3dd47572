import { ChildProcess, spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import request from 'supertest';
import { runCli, SERVER } from '../support/run-cli';
import { freePort } from '../support/server-process';
import { freshDataDir } from '../support/test-database';
import { testEnv } from '../support/test-env';
import { waitForOrFail } from '../support/wait-for';

/** What a person sees: colours and carriage returns taken out, one entry a line. */
const screenLines = (raw: string) =>
  raw
    .replace(/\u001b\[[0-9;]*m/g, '')
    .replace(/\r/g, '')
    .split('\n');

interface Started {
  url: string;
  child: ChildProcess;
  output: () => string;
  /** Ctrl-C (on a terminal) or SIGINT; resolves with the exit code. */
  stop(): Promise<number | null>;
}

/**
 * `npm start` as a person runs it: the built server on the embedded database of `dataDir`, with demo
 * data on (the default outside production). `terminal`: on a pseudo-terminal (util-linux `script`),
 * stdout and stderr both land in the output; otherwise piped, as a container or a log collector sees it.
 * The embedded database whatever the run's database: the first start must find it empty.
 */
async function start(dataDir: string, terminal: boolean): Promise<Started> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const env = testEnv({
    PORT: String(port),
    PUBLIC_URL: url,
    DATA_DIR: dataDir,
    DATABASE_URL: undefined,
    DEMO_DATA: 'true',
    LOG_LEVEL: 'info',
    DOCS_ENABLED: 'false',
  });
  const clean = Object.fromEntries(Object.entries({ PATH: process.env.PATH, ...env }).filter(([, v]) => v !== undefined));
  const child = terminal
    ? spawn('script', ['-qfec', `exec '${process.execPath}' '${SERVER}'`, '/dev/null'], { env: clean })
    : spawn(process.execPath, [SERVER], { env: clean });
  let out = '';
  child.stdout!.on('data', (chunk) => (out += chunk));
  child.stderr!.on('data', (chunk) => (out += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  await waitForOrFail(
    async () => out,
    (text) => text.includes('API listening') || child.exitCode !== null,
    90_000,
    (text) => `the server did not start:\n${text}`,
  );
  if (child.exitCode !== null) throw new Error(`the server exited with ${child.exitCode}:\n${out}`);
  return {
    url,
    child,
    output: () => out,
    async stop() {
      if (child.exitCode === null) {
        if (terminal) child.stdin!.write('\u0003');
        else child.kill('SIGINT');
      }
      return exited;
    },
  };
}

/** The lines from the last line starting with `first` up to the "listening" line, both included. */
function blockBeforeListening(lines: string[], first: string): string[] {
  const listening = lines.findIndex((line) => line.includes('API listening'));
  const from = lines.slice(0, listening).findLastIndex((line) => line.startsWith(first));
  expect({ listening: listening >= 0, from: from >= 0 }).toEqual({ listening: true, from: true });
  return lines.slice(from, listening + 1);
}

describe('npm start at a terminal: a quiet log, the demo credentials last, one line a request', () => {
  let dataDir: string;
  let apiKey: string;
  let server: Started | undefined;

  beforeAll(() => {
    dataDir = freshDataDir('terminal-start-');
  });
  afterAll(async () => {
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('first start: no module or route lines, and the credentials block right before "listening"', async () => {
    server = await start(dataDir, true);
    const lines = screenLines(server.output());
    expect(lines.filter((line) => /Mapped \{|RoutesResolver|RouterExplorer|InstanceLoader|dependencies initialized/.test(line))).toEqual(
      [],
    );

    const block = blockBeforeListening(lines, 'Demo data created');
    expect(block).toEqual([
      'Demo data created. These credentials are shown only now:',
      '  account:  demo@example.com',
      expect.stringMatching(/^ {2}password: \S{16}$/),
      expect.stringMatching(/^ {2}API key: {2}hpk_\w+$/),
      expect.stringMatching(/^ {2}hostctl: {2}HOSTCTL_TOKEN=hpk_\w+ npx hostctl services list$/),
      '',
      expect.stringMatching(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: API listening on http:\/\/127\.0\.0\.1:\d+$/),
    ]);
    apiKey = /API key: {2}(hpk_\w+)/.exec(block.join('\n'))![1];
    // Everything else before it is the few lines of the app's own start-up.
    expect(lines.indexOf(block[0])).toBeLessThan(10);
  });

  it('logs each request as one line: method, path, status, duration and request id', async () => {
    const calls = [
      { path: '/api/services', bearer: `Bearer ${apiKey}`, status: 200 },
      { path: '/api/services?page=2', bearer: `Bearer ${apiKey}`, status: 200 },
      { path: '/api/services', status: 401 },
      { path: '/api/services/00000000-0000-4000-8000-000000000000', bearer: `Bearer ${apiKey}`, status: 404 },
      { path: '/api/auth/me', bearer: `Bearer ${apiKey}`, status: 200 },
    ];
    const ids: string[] = [];
    for (const call of calls) {
      const req = request(server!.url).get(call.path);
      const res = await (call.bearer ? req.set('Authorization', call.bearer) : req).expect(call.status);
      ids.push(res.headers['x-request-id']);
    }
    const lines = await waitForOrFail(
      async () => screenLines(server!.output()),
      (all) => all.some((line) => line.includes(ids[ids.length - 1])),
      10_000,
      (all) => `no line for the last request:\n${all.join('\n')}`,
    );
    const after = lines.slice(lines.findIndex((line) => line.includes('API listening')) + 1).filter(Boolean);
    expect(after).toHaveLength(calls.length);
    calls.forEach((call, i) => {
      const path = call.path.split('?')[0].replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      const level = call.status < 400 ? 'INFO' : 'WARN';
      expect(after[i]).toMatch(new RegExp(`^\\[[\\d:.]+\\] ${level}: GET ${path} ${call.status} \\d+(\\.\\d)? ms {2}${ids[i]}$`));
    });
    expect(await server!.stop()).toBe(0);
    server = undefined;
  });

  it('a later start says how to get back into the demo account, and that advice works', async () => {
    server = await start(dataDir, true);
    const block = blockBeforeListening(screenLines(server.output()), 'Demo data is already here');
    const text = block.join('\n');
    expect(block[0]).toBe('Demo data is already here (account demo@example.com); its password and API key were shown on its first start.');
    expect(text).toContain('npm run cli -- api-key:create --email demo@example.com --name laptop');
    expect(text).toContain('stop the server first');
    expect(text).toContain(
      `curl -X POST ${server.url}/api/auth/password/forgot -H 'Content-Type: application/json' -d '{"email":"demo@example.com"}'`,
    );
    expect(text).toMatch(/written to \S+\/outbox\//);
    expect(text).not.toMatch(/password: \S|hpk_/);
    expect(block[block.length - 1]).toMatch(/INFO: API listening on /);

    // The reset mail: the advised request is accepted and the mail is written where the text says.
    await request(server.url).post('/api/auth/password/forgot').send({ email: 'demo@example.com' }).expect(202);
    await waitForOrFail(
      async () => server!.output(),
      (out) => /Mail "[^"]*" written to \S+\/outbox\/\S+\.eml/.test(out),
      15_000,
      (out) => `no reset mail written:\n${out}`,
    );
    expect(await server.stop()).toBe(0);
    server = undefined;

    // The new key, with the server stopped as the text says.
    const created = await runCli(['api-key:create', '--email', 'demo@example.com', '--name', 'laptop'], {
      DATA_DIR: dataDir,
      DATABASE_URL: undefined,
    });
    expect(created.code).toBe(0);
    apiKey = created.lines[0].key;
    expect(apiKey).toMatch(/^hpk_/);
  });

  it('piped (not a terminal): JSON lines, one a request, and no module or route lines', async () => {
    server = await start(dataDir, false);
    const res = await request(server.url).get('/api/services').set('Authorization', `Bearer ${apiKey}`).expect(200);
    const id = res.headers['x-request-id'];
    const out = await waitForOrFail(
      async () => server!.output(),
      (text) => text.includes(id),
      10_000,
      (text) => `no line for the request:\n${text}`,
    );
    const json = out
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line));
    expect(json.filter((line) => ['InstanceLoader', 'RoutesResolver', 'RouterExplorer'].includes(line.context))).toEqual([]);
    expect(json.filter((line) => line.req?.id === id)).toEqual([
      expect.objectContaining({
        level: 30,
        msg: 'request completed',
        req: { id, method: 'GET', url: '/api/services' },
        res: { statusCode: 200 },
        responseTime: expect.any(Number),
      }),
    ]);
    expect(json.find((line) => /^API listening on /.test(line.msg))).toBeDefined();
    expect(await server.stop()).toBe(0);
    server = undefined;
  });
});
