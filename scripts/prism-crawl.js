#!/usr/bin/env node
// A second, independent contract check: the built API (embedded database, demo data) behind
// Stoplight Prism's validating proxy, and a crawl of every operation in apps/api/openapi.json:
// the successes, each error status, services of both types, actions that succeeded and failed,
// notifications with and without an entity. Any violation Prism reports on a response (the
// `sl-violations` header) fails the run, and so does an operation the crawl did not reach.
// Usage: npm run test:prism [-- <document>] (builds first; the document defaults to the committed one).
const { spawn } = require('node:child_process');
const { generateKeyPairSync, randomUUID } = require('node:crypto');
const { mkdtempSync, readFileSync, rmSync } = require('node:fs');
const { createServer } = require('node:net');
const { tmpdir } = require('node:os');
const { join } = require('node:path');
const { crawl } = require('./prism-crawl/operations');

const root = join(__dirname, '..');
const DOCUMENT = process.argv[2] ?? join(root, 'apps/api/openapi.json');
const SERVER = join(root, 'dist/apps/api/apps/api/src/main.js');
const PRISM = join(root, 'node_modules/@stoplight/prism-cli/dist/index.js');
/** Operations a request/response proxy cannot check, with the reason. */
const NOT_CRAWLED = { 'get /api/notifications/stream': 'an endless text/event-stream, not a JSON response' };

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

/** Spawns a process and resolves once its output matches `ready`. */
function startProcess(name, args, env, ready) {
  const child = spawn(process.execPath, args, { cwd: root, env: { PATH: process.env.PATH, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name} did not start within 300 s:\n${output}`)), 300_000);
    const onData = (chunk) => {
      output += chunk;
      const match = output.match(ready);
      if (match) {
        clearTimeout(timer);
        resolve({ child, match, output: () => output });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited with ${code}:\n${output}`));
    });
  });
}

function stop(proc) {
  if (!proc || proc.child.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    proc.child.once('exit', () => resolve());
    proc.child.kill('SIGTERM');
  });
}

async function main() {
  const started = Date.now();
  const document = JSON.parse(readFileSync(DOCUMENT, 'utf8'));
  const dataDir = mkdtempSync(join(tmpdir(), 'prism-crawl-'));
  const [apiPort, prismPort] = [await freePort(), await freePort()];
  const api = `http://127.0.0.1:${apiPort}`;
  let server;
  let prism;
  try {
    [server, prism] = await Promise.all([
      startProcess(
        'API',
        [SERVER],
        {
          PORT: String(apiPort),
          PUBLIC_URL: api,
          DATA_DIR: dataDir,
          DEMO_DATA: 'true',
          LOG_LEVEL: 'warn',
          COMPUTE_TRANSITION_DELAY_MS: '200',
          RATE_LIMIT_LOGIN_PER_MINUTE: '10',
          JOBS_POLL_INTERVAL_MS: '500',
          RATE_LIMIT_TICKET_CREATE_PER_MINUTE: '20',
        },
        /API key:\s+(hpk_\w+)/,
      ),
      startProcess(
        'Prism',
        [PRISM, 'proxy', DOCUMENT, api, '--host', '127.0.0.1', '--port', String(prismPort), '--errors', 'false'],
        {},
        /Prism is listening/,
      ),
    ]);
    const demoKey = server.match[1];
    const ready = Date.now();
    const report = await crawl({ base: `http://127.0.0.1:${prismPort}`, api, demoKey, sshKey: newSshKey, outbox: join(dataDir, 'outbox') });

    const problems = [...report.responseViolations];
    const reached = new Set(report.calls.filter((c) => c.status < 300).map((c) => c.operation));
    for (const [path, item] of Object.entries(document.paths)) {
      for (const method of Object.keys(item)) {
        const operation = `${method} ${path}`;
        if (!reached.has(operation) && !NOT_CRAWLED[operation]) problems.push(`${operation}: no successful call in the crawl`);
      }
    }
    const statuses = new Set(report.calls.map((c) => c.status));
    for (const status of [400, 401, 403, 404, 409, 413, 422, 429]) {
      if (!statuses.has(status)) problems.push(`no call answered ${status}`);
    }
    problems.push(...report.unexpected);

    const seconds = (from) => ((Date.now() - from) / 1000).toFixed(1);
    process.stdout.write(
      `Prism crawl: ${report.calls.length} calls, ${reached.size} operations answered 2xx, statuses ${[...statuses].sort().join(' ')}; ` +
        `not crawled: ${Object.entries(NOT_CRAWLED)
          .map(([op, why]) => `${op} (${why})`)
          .join(', ')}; ${seconds(started)} s (${seconds(ready)} s of crawling)\n`,
    );
    if (problems.length) {
      process.stderr.write(`\n${problems.length} problem(s):\n  - ${problems.join('\n  - ')}\n`);
      process.exitCode = 1;
    } else {
      process.stdout.write('Prism reported no response violation.\n');
    }
  } finally {
    await Promise.all([stop(prism), stop(server)]);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** A fresh OpenSSH ed25519 public key line. */
function newSshKey(comment) {
  const der = generateKeyPairSync('ed25519').publicKey.export({ type: 'spki', format: 'der' });
  const field = (buf) => Buffer.concat([Buffer.from([0, 0, 0, buf.length]), buf]);
  const blob = Buffer.concat([field(Buffer.from('ssh-ed25519')), field(der.subarray(der.length - 32))]);
  return `ssh-ed25519 ${blob.toString('base64')} ${comment ?? randomUUID()}`;
}

main().catch((err) => {
  process.stderr.write(`${err.stack ?? err}\n`);
  process.exit(1);
});
