import { execFile } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import request from 'supertest';
import { confirmEmailFromOutbox } from '../support/confirm-email';
import { ServerProcess, startServerProcess } from '../support/server-process';
import { freshDataDir } from '../support/test-database';

const run = promisify(execFile);
const ROOT = join(__dirname, '../..');
const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';

/**
 * What a customer does with only Node: `npm install` the packed tarballs (SDK, MCP server, CLI) into an empty folder
 * and use them from plain JavaScript (ES module and CommonJS), TypeScript, and the shell, against
 * the built API running as its own process.
 */
describe('The packed SDK and CLI, installed in an empty folder', () => {
  let server: ServerProcess;
  let dataDir: string;
  let folder: string;

  const node = (file: string, env: Record<string, string> = {}) =>
    run(process.execPath, [file], { cwd: folder, env: { PATH: process.env.PATH, API_URL: server.url, ...env } as NodeJS.ProcessEnv });
  /** A signed-up account whose owner followed the mailed link (only those may create API keys). */
  const confirmedAccount = async (prefix: string) => {
    const account = { EMAIL: `${prefix}-${Date.now()}@example.test`, PASSWORD: 'correct horse battery' };
    await request(server.url)
      .post('/api/auth/register')
      .send({ email: account.EMAIL, password: account.PASSWORD, name: prefix })
      .expect(201);
    await confirmEmailFromOutbox(server.url, dataDir, account.EMAIL);
    return account;
  };

  beforeAll(async () => {
    dataDir = freshDataDir('sdk-package-api-');
    folder = mkdtempSync(join(tmpdir(), 'sdk-package-'));
    const [started] = await Promise.all([startServerProcess({ DATA_DIR: dataDir }, { startTimeoutMs: 120_000 }), packAndInstall(folder)]);
    server = started;
  }, 180_000);
  afterAll(async () => {
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(folder, { recursive: true, force: true });
  });

  it('ships ESM and CommonJS builds with type declarations, and no Node-only imports in the browser build', () => {
    const sdk = join(folder, 'node_modules/@hosting-account/sdk');
    const manifest = JSON.parse(readFileSync(join(sdk, 'package.json'), 'utf8'));
    expect(manifest.exports['.']).toEqual({
      import: { types: './dist/esm/index.d.ts', default: './dist/esm/index.js' },
      require: { types: './dist/cjs/index.d.ts', default: './dist/cjs/index.js' },
    });
    for (const file of readdirSync(join(sdk, 'dist/esm')).filter((f) => f.endsWith('.js'))) {
      const source = readFileSync(join(sdk, 'dist/esm', file), 'utf8').replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '');
      expect({ file, nodeImports: source.match(/\bfrom\s+['"](node:|fs|path|http|https|crypto|os)['"]|\brequire\(|\bprocess\./g) }).toEqual(
        { file, nodeImports: null },
      );
    }
  });

  it('scripts the account from an ES module: login, API key, lists, an Idempotency-Key per POST, problems', async () => {
    writeFileSync(join(folder, 'script.mjs'), ESM_SCRIPT);
    const { stdout } = await node('script.mjs', { PUBLIC_KEY: openSshEd25519(), ...(await confirmedAccount('esm')) });
    expect(JSON.parse(stdout)).toEqual({
      me: true,
      keyPrefix: 'hpk_',
      services: 0,
      sshKeys: 1,
      idempotencyKeys: ['uuid'],
      notFound: { status: 404, code: 'not_found', requestId: true },
    });
  });

  it('scripts the account from CommonJS, including the notification stream', async () => {
    writeFileSync(join(folder, 'script.cjs'), CJS_SCRIPT);
    const { stdout } = await node('script.cjs', await confirmedAccount('cjs'));
    expect(JSON.parse(stdout)).toEqual({ firstEvent: 'unread-count', unread: 1, pages: 1, unauthorized: 'unauthorized' });
  });

  it('type-checks TypeScript consumers of both entries (nodenext resolution), and the types are real', async () => {
    writeFileSync(join(folder, 'consumer.mts'), MTS_CONSUMER);
    writeFileSync(join(folder, 'consumer.cts'), CTS_CONSUMER);
    // Not `any`: a field the API does not have fails to compile (and is the only error of the run).
    writeFileSync(
      join(folder, 'wrong.mts'),
      "import type { Schemas } from '@hosting-account/sdk';\nexport const f = (s: Schemas['ServiceResponse']) => s.noSuchField;\n",
    );
    const tsc = require.resolve('typescript/bin/tsc');
    const args = [
      '--noEmit',
      '--strict',
      '--module',
      'nodenext',
      '--moduleResolution',
      'nodenext',
      '--lib',
      'es2022,dom',
      '--skipLibCheck',
    ];
    const result = await run(process.execPath, [tsc, ...args, 'consumer.mts', 'consumer.cts', 'wrong.mts'], { cwd: folder }).catch(
      (error) => error,
    );
    expect(result.stdout.trim().split('\n')).toEqual([
      expect.stringMatching(/^wrong\.mts\(2,\d+\): error TS2339: Property 'noSuchField' does not exist/),
    ]);
  });

  it('runs the installed hostctl binary', async () => {
    const { stdout } = await run(join(folder, 'node_modules/.bin/hostctl'), ['--version'], { cwd: folder });
    expect(stdout.trim()).toBe('0.1.0');
    const anonymous = await run(join(folder, 'node_modules/.bin/hostctl'), ['services', 'list'], {
      cwd: folder,
      env: { PATH: process.env.PATH, HOME: folder, HOSTCTL_URL: server.url, HOSTCTL_TOKEN: 'hpk_wrong' },
    }).catch((e) => e);
    expect(anonymous.code).toBe(1);
    expect(anonymous.stderr).toMatch(/code: unauthorized/);
    const mcp = await run(join(folder, 'node_modules/.bin/hostctl'), ['mcp', '--help'], { cwd: folder });
    expect(mcp.stdout).toMatch(/^Usage: hostctl mcp \[options\]/);
  });
});

/** `npm pack` of sdk/, mcp/ and cli/ (built by `npm test`), then `npm install` of the three tarballs into `folder`. */
async function packAndInstall(folder: string): Promise<void> {
  await run(process.execPath, [join(ROOT, 'scripts/build-if-needed.js')], { cwd: ROOT });
  const tarballs: string[] = [];
  for (const workspace of ['sdk', 'mcp', 'cli']) {
    const { stdout } = await run(NPM, ['pack', '--json', '--ignore-scripts', '--pack-destination', folder], { cwd: join(ROOT, workspace) });
    tarballs.push(join(folder, JSON.parse(stdout)[0].filename));
  }
  writeFileSync(join(folder, 'package.json'), JSON.stringify({ name: 'customer-automation', private: true }));
  await run(NPM, ['install', ...tarballs, '--no-audit', '--no-fund', '--prefer-offline', '--no-package-lock'], { cwd: folder });
}

function openSshEd25519(): string {
  const der = generateKeyPairSync('ed25519').publicKey.export({ format: 'der', type: 'spki' });
  const field = (data: Buffer) => Buffer.concat([Buffer.from([0, 0, 0, data.length]), data]);
  return `ssh-ed25519 ${Buffer.concat([field(Buffer.from('ssh-ed25519')), field(der.subarray(-32))]).toString('base64')}`;
}

const ESM_SCRIPT = `
import { createHostingClient, HostingApiError, listAll, unwrap } from '@hosting-account/sdk';
const baseUrl = process.env.API_URL;
const email = process.env.EMAIL;
const anonymous = createHostingClient({ baseUrl });
const signedIn = await unwrap(anonymous.POST('/api/auth/login', { body: { email, password: process.env.PASSWORD } }));
const session = createHostingClient({ baseUrl, token: signedIn.accessToken });
const { key } = await unwrap(session.POST('/api/auth/api-keys', { body: { name: 'esm' } }));
const sent = [];
const recording = (request, init) => { if (request.method === 'POST') sent.push(request.headers.get('idempotency-key')); return fetch(request, init); };
const api = createHostingClient({ baseUrl, token: key, fetch: recording });
const me = await unwrap(api.GET('/api/auth/me'));
await unwrap(api.POST('/api/ssh-keys', { body: { name: 'laptop', publicKey: process.env.PUBLIC_KEY } }));
let notFound;
try {
  await unwrap(api.GET('/api/services/{id}', { params: { path: { id: '00000000-0000-4000-8000-000000000000' } } }));
} catch (error) {
  if (!(error instanceof HostingApiError)) throw error;
  notFound = { status: error.status, code: error.code, requestId: typeof error.requestId === 'string' && error.requestId.length > 0 };
}
console.log(JSON.stringify({
  me: me.email === email,
  keyPrefix: key.slice(0, 4),
  services: (await listAll(api, '/api/services')).length,
  sshKeys: (await listAll(api, '/api/ssh-keys')).length,
  idempotencyKeys: sent.map((k) => (/^[0-9a-f-]{36}$/.test(k ?? '') ? 'uuid' : k)),
  notFound,
}));
`;

const CJS_SCRIPT = `
const { createHostingClient, notificationEvents, pages, unwrap, HostingApiError } = require('@hosting-account/sdk');
(async () => {
  const baseUrl = process.env.API_URL;
  const anonymous = createHostingClient({ baseUrl });
  const signedIn = await unwrap(anonymous.POST('/api/auth/login', { body: { email: process.env.EMAIL, password: process.env.PASSWORD } }));
  const api = createHostingClient({ baseUrl, token: signedIn.accessToken });
  await unwrap(api.POST('/api/auth/api-keys', { body: { name: 'makes a notification' } }));
  // The key's notification is made just after its transaction commits: the stream starts with the
  // count as it is, and pushes the new notification and count when it lands.
  const stop = new AbortController();
  const giveUp = setTimeout(() => stop.abort(), 10000);
  let firstEvent;
  let unread;
  for await (const { event, data } of notificationEvents(api, { signal: stop.signal })) {
    firstEvent ??= event;
    if (event === 'unread-count') unread = data.count;
    if (unread >= 1) break;
  }
  clearTimeout(giveUp);
  stop.abort();
  let count = 0;
  for await (const _page of pages(api, '/api/notifications')) count++;
  await unwrap(api.POST('/api/auth/logout'));
  const ended = await unwrap(api.GET('/api/auth/me')).catch((e) => e);
  console.log(JSON.stringify({ firstEvent, unread, pages: count, unauthorized: ended instanceof HostingApiError ? ended.code : String(ended) }));
})().catch((error) => { console.error(error); process.exit(1); });
`;

const MTS_CONSUMER = `import { createHostingClient, unwrap, type Schemas } from '@hosting-account/sdk';
export async function names(baseUrl: string, token: string): Promise<string[]> {
  const api = createHostingClient({ baseUrl, token });
  const page = await unwrap(api.GET('/api/services', { params: { query: { type: 'vps', pageSize: 10 } } }));
  const services: Schemas['ServiceResponse'][] = page.data;
  return services.map((s) => s.name);
}
`;

const CTS_CONSUMER = `import sdk = require('@hosting-account/sdk');
export async function names(baseUrl: string, token: string): Promise<string[]> {
  const api = sdk.createHostingClient({ baseUrl, token });
  const page = await sdk.unwrap(api.GET('/api/services', { params: { query: { type: 'vps', pageSize: 10 } } }));
  const services: sdk.Schemas['ServiceResponse'][] = page.data;
  return services.map((s) => s.name);
}
`;
