#!/usr/bin/env node
'use strict';
// The benchmark: the built API against a bare node:http + pg baseline (bench/baseline/server.js)
// on the same seeded PostgreSQL database, measured with autocannon in alternation. The lists also
// run against a second baseline, the same server answering only the contract's fields of each service
// (BASELINE_LIST=contract): what the kinds add to a page is what that ratio shows.
//
//   node bench/run.js             full run: warm-up, then 3 rounds of A B (API, baseline), 50 connections, 10 s
//   node bench/run.js --smoke     CI: 1 round, 1 s, 10 connections (still checks the bodies byte for byte)
//
// Options: --profile <scenario> (a CPU profile of the API under that scenario and its top frames by self time,
//          into bench/results/profile-<scenario>.{txt,json,cpuprofile})
//          --only=<scenario,...> (hostile-bodies: the wide-JSON scenario; console: the console proxy's throughput;
//          webhooks: deliveries/s against a bare loop; streams: open notification streams;
//          metrics: the metrics route against a direct query_range to the same Prometheus;
//          backups, only when named: a VPS disk backed up to Ceph RGW against qemu-img convert and the same upload;
//          volumes, only when named: a tiny TCG guest's dd through an RBD and a local-pool volume against its own
//          root disk, bench/volumes.js; alone it needs no database and writes bench/results/volumes.json)
//          moves, only when named: a tiny TCG guest moved live (idle and busy) between two libvirtds of its own,
//          and once cold, bench/moves.js; alone it needs no database and writes bench/results/moves.json)
//          --streams=N  --backup-mb=N (the backups scenario's disk, 128; then one 4x)  --backup-transfer=auto|stream (LIBVIRT_DISK_TRANSFER of the API's backups)
//          --metrics-cores=split|shared (split: Prometheus on a CPU of its own, the API and autocannon on the others)
//          --volume-mb=N (the volumes scenario's dd size, 256)  --rounds=N  --duration=S  --warmup=S  --connections=N
//          --pool=N (DB_POOL_SIZE of both servers; unset: the API's default)  --db=<name>
//          --reuse-db (keep a seeded database from an earlier run)  --out=<file>  --strict
//          --scale=provider (every list at a provider's size against a small dataset, EXPLAIN of each,
//          the retention purge and an account's cleanup while reading; bench/scale.js) --scale-factor=F (default 1)
//          --rate=R (requests/s of each scale measurement; default 100)
//          --admin-url=<postgres URL of the maintenance database>
//          --api=<main.js of another build of the API> (to compare builds; default: the built dist/)
//          --api-node-options=<NODE_OPTIONS for the API process only> (default: the Dockerfile's, as in production)
//          --api-node-args=<node's arguments before the API's script, for V8 flags NODE_OPTIONS refuses, e.g. --minor-ms>
//          (default: those of the Dockerfile's CMD)
//          --node=<node binary for both servers> (default: the one running this script; bench/node-versions.js compares two)
// Environment: BENCH_WEBHOOK_BACKLOG (deliveries per endpoint in the webhooks scenario; 500, 50 in smoke mode),
//          WEBHOOKS_CONCURRENCY (passed to the API; unset: its default).
// Memory: the measured API preloads bench/heap-probe.js (a full GC and its live set on SIGUSR2, at the end).
// Exit code: 1 if a body differs, a server fails, or a run has non-2xx responses or errors
// (with --strict also if a target fails).
const { spawn, execSync } = require('node:child_process');
const { randomBytes, randomInt, createHash } = require('node:crypto');
const fs = require('node:fs');
const http = require('node:http');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');
const { crc32 } = require('node:zlib');
const autocannon = require('autocannon');
const jwt = require('jsonwebtoken');
const { setTimeout: sleep } = require('node:timers/promises');
const { withClient } = require('./pg-client');
const { consoleScenario } = require('./console');

const ROOT = path.join(__dirname, '..');
const BUILT_API = path.join(ROOT, 'dist/apps/api/apps/api/src/main.js');
const BASELINE = path.join(__dirname, 'baseline/server.js');
const { ALPHABET, toBase62 } = require(BASELINE);
const { measureHostileBodies } = require('./hostile-bodies');
const { webhooksScenario } = require('./webhooks');
const { streamsScenario } = require('./streams');
const { scaleScenario } = require('./scale');
const { writeProfileReport } = require('./profile');
const { metricsScenario } = require('./metrics');
const { backupsScenario } = require('./backups');
const { volumesScenario, volumesSummary, stopVolumes } = require('./volumes');
const { movesScenario, movesSummary, stopMoves } = require('./moves');

// ---- options -----------------------------------------------------------------------------------
function parseArgs(argv) {
  const flags = {};
  for (let i = 0; i < argv.length; i++) {
    const m = /^--([a-z-]+)(?:=(.*))?$/.exec(argv[i]);
    if (!m) throw new Error(`Unknown argument ${argv[i]}`);
    // `--profile <scenario>` as well as `--profile=<scenario>`
    if (m[1] === 'profile' && m[2] === undefined && argv[i + 1] && !argv[i + 1].startsWith('--')) flags.profile = argv[++i];
    else flags[m[1]] = m[2] === undefined ? true : m[2];
  }
  const smoke = Boolean(flags.smoke);
  const num = (name, fallback) => (flags[name] === undefined ? fallback : Number(flags[name]));
  return {
    smoke,
    rounds: num('rounds', smoke ? 1 : 3),
    duration: num('duration', smoke ? 1 : 10),
    warmup: num('warmup', smoke ? 1 : 5),
    connections: num('connections', smoke ? 10 : 50),
    backupMb: num('backup-mb', 128),
    backupTransfer: String(flags['backup-transfer'] ?? 'auto'),
    metricsCores: String(flags['metrics-cores'] ?? 'split'),
    volumeMb: num('volume-mb', 256),
    pool: flags.pool === undefined ? undefined : String(flags.pool),
    only: flags.profile ? [String(flags.profile)] : flags.only ? String(flags.only).split(',') : null,
    profile: flags.profile ? String(flags.profile) : null,
    db: String(flags.db ?? 'hosting_bench'),
    adminUrl: String(flags['admin-url'] ?? process.env.BENCH_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'),
    reuseDb: Boolean(flags['reuse-db']),
    strict: Boolean(flags.strict),
    out: path.resolve(ROOT, String(flags.out ?? (smoke ? 'bench/results/smoke.json' : 'bench/results/latest.json'))),
    api: path.resolve(ROOT, String(flags.api ?? BUILT_API)),
    apiNodeOptions: flags['api-node-options'] === undefined ? productionNodeOptions() : String(flags['api-node-options']),
    apiNodeArgs: flags['api-node-args'] === undefined ? productionNodeArgs() : String(flags['api-node-args']).split(/\s+/).filter(Boolean),
    node: flags.node ? String(flags.node) : process.execPath,
    streams: flags.streams === undefined ? undefined : Number(flags.streams),
    scale: flags.scale === undefined ? null : String(flags.scale),
    scaleFactor: num('scale-factor', 1),
    rate: num('rate', 100),
  };
}

/** NODE_OPTIONS of the production image (the Dockerfile's ENV), so the API runs here as deployed. */
function productionNodeOptions() {
  const dockerfile = fs.readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8');
  const m = /^ENV .*\bNODE_OPTIONS=(?:"([^"]*)"|(\S+))/m.exec(dockerfile);
  return m?.[1] ?? m?.[2];
}

/**
 * V8 flags NODE_OPTIONS refuses (`--minor-ms`) are on the image's command line: the arguments
 * between `node` and the script in the Dockerfile's CMD.
 */
function productionNodeArgs() {
  const dockerfile = fs.readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8');
  const m = /^CMD (\[.*\])\s*$/m.exec(dockerfile);
  return m ? JSON.parse(m[1]).slice(1, -1) : [];
}

const log = (...parts) => process.stdout.write(`${parts.join(' ')}\n`);

// ---- database ----------------------------------------------------------------------------------
function databaseUrl(adminUrl, db) {
  const url = new URL(adminUrl);
  url.pathname = `/${db}`;
  return url.toString();
}

async function isSeeded(url) {
  try {
    return await withClient(url, async (c) => (await c.query('SELECT count(*)::int AS n FROM services')).rows[0].n === 200000);
  } catch {
    return false;
  }
}

/** libs/api-keys/src/api-key-format.ts generateApiKey */
function newApiKey() {
  let random = '';
  for (let i = 0; i < 32; i++) random += ALPHABET[randomInt(62)];
  return `hpk_${random}${toBase62(crc32(random) >>> 0, 6)}`;
}
const sha256 = (text) => createHash('sha256').update(text).digest('hex');
/** SQL for seed.sql's bench_id(): an md5-derived id shaped as a version 4 UUID. */
const benchId = (seed) => `overlay(overlay(md5(${seed}) placing '4' from 13) placing '8' from 17)::uuid`;

/** One key per account (account 1 also has a read-only one) and one live session per account. */
async function insertCredentials(url) {
  return withClient(url, async (c) => {
    await c.query('BEGIN');
    await c.query(`DELETE FROM api_keys WHERE name LIKE 'bench %'`);
    await c.query(`DELETE FROM sessions WHERE id IN (SELECT ${benchId(`'session-' || a`)} FROM generate_series(1, 1000) a)`);
    const keys = Array.from({ length: 1000 }, newApiKey);
    await c.query(
      `INSERT INTO api_keys (account_id, name, prefix, key_hash, scopes, created_at)
       SELECT ${benchId(`'account-' || k.n`)}, 'bench key ' || k.n, left(k.key, 12), k.hash, ARRAY['read', 'write'], now() - interval '1 day'
         FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS k(key, hash, n)`,
      [keys, keys.map(sha256)],
    );
    const readOnly = newApiKey();
    await c.query(
      `INSERT INTO api_keys (account_id, name, prefix, key_hash, scopes) VALUES (${benchId(`'account-1'`)}, 'bench read-only', left($1, 12), $2, ARRAY['read'])`,
      [readOnly, sha256(readOnly)],
    );
    await c.query(
      `INSERT INTO sessions (id, account_id, expires_at)
       SELECT ${benchId(`'session-' || a`)}, ${benchId(`'account-' || a`)}, now() + interval '30 days' FROM generate_series(1, 1000) a`,
    );
    const { rows } = await c.query(
      `SELECT ${benchId(`'account-1'`)} AS account, ${benchId(`'session-1'`)} AS session, ${benchId(`'notification-2000'`)} AS notification`,
    );
    // The ticket-reply scenario's ticket (a new one each run: replies and their activity entries pile up).
    await c.query(`DELETE FROM tickets WHERE subject = 'bench replies'`);
    const ticket = await c.query(`INSERT INTO tickets (account_id, subject) VALUES ($1, 'bench replies') RETURNING id`, [rows[0].account]);
    // The one-service and action-status scenarios: a running VPS of account 1 and a finished action on it.
    const vps = await c.query(
      `SELECT id FROM services WHERE account_id = $1 AND type = 'vps' AND status = 'active' ORDER BY created_at DESC, id DESC LIMIT 1`,
      [rows[0].account],
    );
    await c.query(`DELETE FROM instance_actions WHERE provider_task = 'bench'`);
    const action = await c.query(
      `INSERT INTO instance_actions (service_id, type, status, from_state, provider_task, started_at, finished_at)
       VALUES ($1, 'reboot', 'succeeded', 'running', 'bench', now() - interval '1 minute', now()) RETURNING id`,
      [vps.rows[0].id],
    );
    await c.query('COMMIT');
    const accounts = await c.query(`SELECT ${benchId(`'account-' || a`)} AS id FROM generate_series(1, 1000) a ORDER BY a`);
    return {
      keys,
      accountIds: accounts.rows.map((r) => r.id),
      apiKey: keys[0],
      account: rows[0].account,
      session: rows[0].session,
      notification: rows[0].notification,
      ticket: ticket.rows[0].id,
      vps: vps.rows[0].id,
      action: action.rows[0].id,
    };
  });
}

// ---- processes ---------------------------------------------------------------------------------
function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

let serverNode = process.execPath;
const apiProcess = { script: null, nodeArgs: [] };

function startProcess(name, script, env) {
  const args = script === apiProcess.script ? [...apiProcess.nodeArgs, script] : [script];
  const child = spawn(serverNode, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let tail = '';
  const keep = (chunk) => {
    tail = (tail + chunk.toString()).slice(-8000);
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  return { name, child, exited, tail: () => tail };
}

async function stopProcess(proc) {
  if (proc.child.exitCode !== null || proc.child.signalCode !== null) return;
  proc.child.kill('SIGTERM');
  const timer = setTimeout(() => proc.child.kill('SIGKILL'), 30_000);
  await proc.exited;
  clearTimeout(timer);
}

function request(port, { method = 'GET', path: urlPath, headers = {}, body }) {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method, path: urlPath, headers, agent: false }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.setTimeout(10_000, () => req.destroy(new Error('timeout')));
    req.end(body);
  });
}

async function waitReady(proc, port, urlPath, timeoutMs = 120_000) {
  const until = Date.now() + timeoutMs;
  for (;;) {
    if (proc.child.exitCode !== null) throw new Error(`${proc.name} exited with ${proc.child.exitCode}:\n${proc.tail()}`);
    try {
      const res = await request(port, { path: urlPath });
      if (res.status === 200) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > until) throw new Error(`${proc.name} not ready after ${timeoutMs} ms:\n${proc.tail()}`);
    await sleep(200);
  }
}

/** CPU time (user + system) a process has used, in ms. */
function cpuMs(pid) {
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
  } catch {
    return NaN;
  }
}
const CLOCK_TICKS = (() => {
  try {
    return Number(execSync('getconf CLK_TCK', { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

function procStatus(pid) {
  try {
    const text = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (field) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? 0);
    return { rssKb: kb('VmRSS'), hwmKb: kb('VmHWM') };
  } catch {
    return { rssKb: 0, hwmKb: 0 };
  }
}

/** The API's heap after a full collection (bench/heap-probe.js, on SIGUSR2); null when it did not answer. */
async function heapLiveSet(child, file) {
  fs.rmSync(file, { force: true });
  child.kill('SIGUSR2');
  for (let i = 0; i < 50 && !fs.existsSync(file); i++) await sleep(100);
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    return null;
  } finally {
    fs.rmSync(file, { force: true });
  }
}

class RssSampler {
  constructor(procs) {
    this.procs = procs;
    this.peak = Object.fromEntries(procs.map((p) => [p.name, { maxRssKb: 0, hwmKb: 0 }]));
    this.timer = setInterval(() => this.sample(), 200);
  }
  sample() {
    for (const p of this.procs) {
      const s = procStatus(p.child.pid);
      const peak = this.peak[p.name];
      peak.maxRssKb = Math.max(peak.maxRssKb, s.rssKb);
      peak.hwmKb = Math.max(peak.hwmKb, s.hwmKb);
    }
  }
  stop() {
    this.sample();
    clearInterval(this.timer);
    return this.peak;
  }
}

// ---- scenarios ---------------------------------------------------------------------------------
function scenarios(creds, tokens) {
  const key = { authorization: `Bearer ${creds.apiKey}` };
  const token = { authorization: `Bearer ${tokens.access}` };
  return [
    {
      id: 'list-10-key',
      title: 'GET /api/services?pageSize=10 (API key)',
      path: '/api/services?page=1&pageSize=10',
      headers: key,
      minRatio: 0.8,
    },
    {
      id: 'list-10-token',
      title: 'GET /api/services?pageSize=10 (access token)',
      path: '/api/services?page=1&pageSize=10',
      headers: token,
      minRatio: 0.8,
    },
    {
      id: 'list-100-key',
      title: 'GET /api/services?pageSize=100 (API key)',
      path: '/api/services?page=1&pageSize=100',
      headers: key,
      minRatio: 0.9,
    },
    {
      id: 'list-100-token',
      title: 'GET /api/services?pageSize=100 (access token)',
      path: '/api/services?page=1&pageSize=100',
      headers: token,
      minRatio: 0.9,
    },
    {
      id: 'list-page-1000',
      title: 'GET /api/services?page=1000&pageSize=10 (API key)',
      path: '/api/services?page=1000&pageSize=10',
      headers: key,
      minRatio: null,
    },
    {
      id: 'unread-count',
      title: 'GET /api/notifications/unread-count (API key)',
      path: '/api/notifications/unread-count',
      headers: key,
      minRatio: 0.8,
      maxCpuRatio: 2,
    },
    {
      id: 'service-get',
      title: 'GET /api/services/{id} (API key, a VPS)',
      path: `/api/services/${creds.vps}`,
      headers: key,
      minRatio: 0.8,
      maxCpuRatio: 2,
    },
    {
      id: 'action-get',
      title: 'GET /api/services/{id}/instance/actions/{actionId} (API key)',
      path: `/api/services/${creds.vps}/instance/actions/${creds.action}`,
      headers: key,
      minRatio: 0.8,
      maxCpuRatio: 2,
    },
    {
      id: 'read',
      title: 'POST /api/notifications/{id}/read (API key, idempotent)',
      method: 'POST',
      path: `/api/notifications/${creds.notification}/read`,
      headers: key,
      minRatio: 0.6,
    },
    {
      // A write that records an activity entry in its transaction; the baseline does the same inserts.
      id: 'ticket-reply',
      title: 'POST /api/support/tickets/{id}/reply (API key, records an activity entry)',
      method: 'POST',
      path: `/api/support/tickets/${creds.ticket}/reply`,
      headers: { ...key, 'content-type': 'application/json' },
      body: JSON.stringify({ message: 'Still slow after the restart, see the graph.' }),
      // Each reply is a new message: its id and time differ, the rest must match.
      normalize: (json) => ({ ...json, id: '<id>', createdAt: '<time>' }),
      minRatio: null,
    },
  ];
}

/** The lists, measured against the second baseline too. */
const isList = (scenario) => scenario.path.startsWith('/api/services?');
/** A list's ratio against the baseline that answers the contract's fields only. */
const CONTRACT_MIN_RATIO = 0.8;
const CONTRACT_FIELDS = ['id', 'name', 'type', 'status', 'price', 'billingCycle', 'nextDueDate'];

/** The second baseline answers the same services, page and total, each with the API's values of the contract's fields. */
async function checkContractFields(scenario, ports) {
  const [api, contract] = [await request(ports.api, scenario), await request(ports.contract, scenario)];
  if (contract.status !== api.status) return { problem: `status ${contract.status}, the API's ${api.status}` };
  const [a, c] = [JSON.parse(api.body.toString()), JSON.parse(contract.body.toString())];
  const pick = (item) => Object.fromEntries(CONTRACT_FIELDS.map((field) => [field, item[field]]));
  const expected = JSON.stringify({ ...a, data: a.data.map(pick) });
  if (JSON.stringify(c) !== expected) return { problem: `${JSON.stringify(c).slice(0, 300)} against ${expected.slice(0, 300)}` };
  return { bytes: contract.body.length };
}

/** The bodies must be equal byte for byte (and the status and media type the same). */
async function checkParity(scenario, ports) {
  const order = scenario.method === 'POST' ? ['api', 'baseline', 'api'] : ['api', 'baseline'];
  const responses = [];
  for (const who of order) {
    const answer = await request(ports[who], scenario);
    if (scenario.normalize && answer.status < 300)
      answer.body = Buffer.from(JSON.stringify(scenario.normalize(JSON.parse(answer.body.toString()))));
    responses.push({ who, ...answer });
  }
  const [first] = responses;
  const problems = [];
  if (first.status < 200 || first.status > 299) problems.push(`API answered ${first.status}: ${first.body.toString().slice(0, 300)}`);
  for (const other of responses.slice(1)) {
    if (other.status !== first.status) problems.push(`status ${first.who} ${first.status} != ${other.who} ${other.status}`);
    if (other.headers['content-type'] !== first.headers['content-type']) {
      problems.push(`content-type ${first.who} ${first.headers['content-type']} != ${other.who} ${other.headers['content-type']}`);
    }
    if (!other.body.equals(first.body)) {
      let i = 0;
      while (i < first.body.length && first.body[i] === other.body[i]) i++;
      problems.push(
        `bodies differ at byte ${i}:\n  ${first.who}:      ...${first.body.subarray(Math.max(0, i - 80), i + 80)}\n  ${other.who}: ...${other.body.subarray(Math.max(0, i - 80), i + 80)}`,
      );
    }
  }
  return { ok: problems.length === 0, problems, bytes: first.body.length };
}

function cannon(port, scenario, { connections, duration, rate }) {
  return autocannon({
    url: `http://127.0.0.1:${port}${scenario.path}`,
    method: scenario.method ?? 'GET',
    headers: scenario.headers,
    body: scenario.body,
    connections,
    duration,
    overallRate: rate || undefined,
    timeout: 10,
  });
}

function summarise(result) {
  return {
    rps: Math.round(result.requests.average * 10) / 10,
    p50: result.latency.p50,
    p99: result.latency.p99,
    max: result.latency.max,
    requests: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
  };
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

// ---- report --------------------------------------------------------------------------------------
function machine() {
  const sh = (cmd) => {
    try {
      return execSync(cmd, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    } catch {
      return null;
    }
  };
  return {
    nproc: Number(sh('nproc')) || os.cpus().length,
    cpu: os.cpus()[0]?.model ?? null,
    memory: sh('free -h | sed -n 2p'),
    loadAverageAtStart: os.loadavg().map((l) => Math.round(l * 100) / 100),
    node: process.version,
    serverNode: execSync(`"${serverNode}" --version`, { encoding: 'utf8' }).trim(),
    platform: `${os.type()} ${os.release()}`,
    gitCommit: sh('git rev-parse --short HEAD'),
  };
}

const fmt = (n, digits = 0) => (n === null || n === undefined || Number.isNaN(n) ? '-' : Number(n).toFixed(digits));
const pad = (s, n) => String(s).padStart(n);

function printTable(rows) {
  log('');
  log(
    `${'scenario'.padEnd(16)}${pad('API rps', 9)}${pad('base rps', 10)}${pad('ratio', 7)}${pad('API p50', 9)}${pad('base p50', 10)}${pad('API p99', 9)}${pad('base p99', 10)}` +
      `${pad('@rate', 7)}${pad('API p99', 9)}${pad('base p99', 10)}${pad('API cpu', 9)}${pad('base cpu', 10)}${pad('non2xx', 8)}`,
  );
  for (const r of rows) {
    log(
      `${r.id.padEnd(16)}${pad(fmt(r.api.rps), 9)}${pad(fmt(r.baseline.rps), 10)}${pad(fmt(r.ratio, 2), 7)}${pad(fmt(r.api.p50), 9)}${pad(fmt(r.baseline.p50), 10)}` +
        `${pad(fmt(r.api.p99), 9)}${pad(fmt(r.baseline.p99), 10)}${pad(fmt(r.fixedRate?.rate), 7)}${pad(fmt(r.fixedRate?.api.p99), 9)}${pad(fmt(r.fixedRate?.baseline.p99), 10)}` +
        `${pad(fmt(r.api.cpuMsPerRequest, 2), 9)}${pad(fmt(r.baseline.cpuMsPerRequest, 2), 10)}${pad(r.non2xx, 8)}`,
    );
  }
  log('(latencies in ms; rps, latencies and cpu (ms of CPU per request, user + system) are the median of the rounds;');
  log(" @rate: both run at half the baseline's rps)");
}

function printHostile(rows) {
  log('');
  log(
    `${'hostile body'.padEnd(18)}${pad('bytes', 9)}${pad('status', 8)}${pad('answer', 8)}${pad('cpu/req', 9)}${pad('p50', 7)}${pad('max', 7)}${pad('live p99', 10)}${pad('live max', 10)}`,
  );
  for (const r of rows) {
    log(
      `${r.id.padEnd(18)}${pad(r.bodyBytes, 9)}${pad(r.statuses.join('/'), 8)}${pad(r.responseBytes, 8)}${pad(fmt(r.cpuMsPerRequest, 1), 9)}` +
        `${pad(fmt(r.latencyP50), 7)}${pad(fmt(r.latencyMax), 7)}${pad(fmt(r.healthP99), 10)}${pad(fmt(r.healthMax), 10)}`,
    );
  }
  log('(POST /api/auth/login on two connections; cpu in ms of API CPU per request; live: GET /health/live polled meanwhile, ms)');
}

function hostileChecks(hostile) {
  if (!hostile) return [];
  const worst = hostile.filter((r) => r.accepted).reduce((a, b) => (b.cpuMsPerRequest > a.cpuMsPerRequest ? b : a));
  const liveMax = Math.max(...hostile.map((r) => r.healthMax));
  const wrong = hostile.filter((r) => r.statuses.some((s) => s !== 400) || r.responseBytes > 8192).map((r) => r.id);
  return [
    {
      target: 'worst wide JSON body within the caps: API CPU <= 50 ms per request',
      value: `${worst.cpuMsPerRequest} ms (${worst.id})`,
      pass: worst.cpuMsPerRequest <= 50,
    },
    { target: '/health/live while wide bodies are posted: max <= 250 ms', value: `${liveMax} ms`, pass: liveMax <= 250 },
    { target: 'wide bodies answered 400 with at most 8 KiB', value: wrong.length ? wrong.join(', ') : 'all', pass: wrong.length === 0 },
  ];
}

function targetChecks(rows, rss, opts, hostile) {
  const checks = [...hostileChecks(hostile)];
  const byId = Object.fromEntries(rows.map((r) => [r.id, r]));
  for (const r of rows) {
    if (r.minRatio !== null) {
      checks.push({ target: `${r.id}: API throughput >= ${r.minRatio} of the baseline`, value: r.ratio, pass: r.ratio >= r.minRatio });
    }
    if (r.maxCpuRatio) {
      const cpu = Math.round((r.api.cpuMsPerRequest / r.baseline.cpuMsPerRequest) * 100) / 100;
      checks.push({
        target: `${r.id}: API CPU per request <= ${r.maxCpuRatio}x the baseline's`,
        value: `${cpu}x (${r.api.cpuMsPerRequest} vs ${r.baseline.cpuMsPerRequest} ms)`,
        pass: cpu <= r.maxCpuRatio,
      });
    }
  }
  for (const r of rows) {
    if (!r.contract) continue;
    checks.push({
      target: `${r.id}: API throughput >= ${CONTRACT_MIN_RATIO} of a baseline answering the contract's fields only`,
      value: `${r.contractRatio} (${fmt(r.api.rps)} vs ${fmt(r.contract.rps)} req/s, ${r.bodyBytes} vs ${r.contract.bodyBytes} bytes)`,
      pass: r.contractRatio >= CONTRACT_MIN_RATIO,
    });
  }
  for (const r of rows) {
    if (!r.fixedRate) continue;
    const limit = 2 * r.fixedRate.baseline.p99;
    checks.push({
      target: `${r.id}: API p99 <= 2x the baseline's p99 at ${r.fixedRate.rate} req/s (half the baseline's rate)`,
      value: `${r.fixedRate.api.p99} ms vs ${r.fixedRate.baseline.p99} ms`,
      pass: r.fixedRate.api.p99 <= Math.max(limit, 1),
    });
  }
  if (byId['list-page-1000'] && byId['list-10-key']) {
    const deep = byId['list-page-1000'].api.p50;
    const first = byId['list-10-key'].api.p50;
    checks.push({
      target: 'list-page-1000: API p50 <= 2x the p50 of page 1 (list-10-key)',
      value: `${deep} ms vs ${first} ms`,
      pass: deep <= Math.max(2 * first, 1),
    });
  }
  const apiPeakMb = Math.round(Math.max(rss.api.hwmKb, rss.api.maxRssKb) / 1024);
  checks.push({ target: 'API peak RSS under the bench <= 250 MB', value: `${apiPeakMb} MB`, pass: apiPeakMb <= 250 });
  const bad = rows.flatMap((r) =>
    r.runs.filter((run) => run.non2xx || run.errors || run.timeouts).map((run) => `${r.id}/${run.server}/${run.phase}`),
  );
  checks.push({
    target: 'zero non-2xx responses, errors and timeouts in every run',
    value: bad.length ? bad.join(', ') : 'none',
    pass: bad.length === 0,
  });
  if (opts.smoke) for (const c of checks) c.informational = true;
  return checks;
}

// ---- main --------------------------------------------------------------------------------------
async function main() {
  const opts = parseArgs(process.argv.slice(2));
  serverNode = opts.node;
  apiProcess.script = opts.api;
  apiProcess.nodeArgs = opts.apiNodeArgs;
  const API_MAIN = opts.api;
  if (!fs.existsSync(API_MAIN)) throw new Error(`${API_MAIN} is missing: run npm run build first`);
  const dbUrl = databaseUrl(opts.adminUrl, opts.db);
  const secrets = {
    JWT_SECRET: randomBytes(32).toString('hex'),
    SIGNING_SECRET: randomBytes(32).toString('hex'),
    ENCRYPTION_KEY: randomBytes(32).toString('base64'),
  };
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'hosting-bench-'));
  const baseEnv = { PATH: process.env.PATH, HOME: process.env.HOME, DATABASE_URL: dbUrl, ...secrets };
  if (opts.pool) baseEnv.DB_POOL_SIZE = opts.pool;
  const apiEnv = (port, url = dbUrl) => ({
    ...baseEnv,
    DATABASE_URL: url,
    NODE_ENV: 'production',
    PORT: String(port),
    LOG_LEVEL: 'warn',
    RATE_LIMIT_PER_MINUTE: '0',
    // The hostile-body scenario posts to /api/auth/login: it measures validation, not the login bucket.
    RATE_LIMIT_LOGIN_PER_MINUTE: '0',
    RATE_LIMIT_CONSOLE_PER_MINUTE: '1000',
    // The webhooks scenario's receiver is on loopback, over plain HTTP.
    WEBHOOKS_ALLOW_HTTP: 'true',
    WEBHOOKS_ALLOW_PRIVATE: 'true',
    // Unset: the API's default (4), as deployed; set to see how the webhooks scenario scales with it.
    ...(process.env.WEBHOOKS_CONCURRENCY ? { WEBHOOKS_CONCURRENCY: process.env.WEBHOOKS_CONCURRENCY } : {}),
    DEMO_DATA: 'false',
    DATA_DIR: dataDir,
    ...(opts.apiNodeOptions ? { NODE_OPTIONS: opts.apiNodeOptions } : {}),
  });
  // The measured API also loads the heap probe (a full GC on SIGUSR2, its live set into a file).
  const heapProbeFile = path.join(os.tmpdir(), `hosting-bench-heap-${process.pid}.json`);
  const probedEnv = (env) => ({
    ...env,
    NODE_OPTIONS: `${env.NODE_OPTIONS ?? ''} --require ${path.join(__dirname, 'heap-probe.js')}`.trim(),
    BENCH_HEAP_PROBE_FILE: heapProbeFile,
  });
  // --profile: the measured API process (not the migrating one) writes a CPU profile when it exits.
  const profileDir = opts.profile ? fs.mkdtempSync(path.join(os.tmpdir(), 'hosting-bench-profile-')) : null;
  const profiledEnv = (env) => ({ ...env, NODE_OPTIONS: `${env.NODE_OPTIONS ?? ''} --cpu-prof --cpu-prof-dir=${profileDir}`.trim() });
  const started = [];
  const cleanup = async () => {
    await Promise.all([...started.map((p) => stopProcess(p).catch(() => undefined)), stopVolumes(), stopMoves()]);
  };
  process.on('SIGINT', () => void cleanup().then(() => process.exit(130)));
  // A bench killed with SIGTERM (kill, pkill) stops its servers too: one left running took the next run's jobs.
  process.on('SIGTERM', () => void cleanup().then(() => process.exit(143)));

  // Scenarios that need neither the database nor the servers: named alone, they run without them.
  if (opts.only && opts.only.every((id) => id === 'volumes' || id === 'moves')) {
    const volumesRow = opts.only.includes('volumes') ? await volumesScenario({ rounds: opts.rounds, volumeMb: opts.volumeMb, log }) : null;
    if (volumesRow) for (const line of volumesSummary(volumesRow)) log(line);
    const movesRow = opts.only.includes('moves') ? await movesScenario({ rounds: opts.rounds, log }) : null;
    if (movesRow) for (const line of movesSummary(movesRow)) log(line);
    const alone = opts.only.length === 1 ? opts.only[0] : 'latest';
    const out = opts.out.endsWith('latest.json') ? path.join(ROOT, `bench/results/${alone}.json`) : opts.out;
    fs.mkdirSync(path.dirname(out), { recursive: true });
    const rows = { ...(volumesRow ? { volumes: volumesRow } : {}), ...(movesRow ? { moves: movesRow } : {}) };
    fs.writeFileSync(out, `${JSON.stringify({ generatedAt: new Date().toISOString(), machine: machine(), ...rows }, null, 2)}\n`);
    log(`\nWritten to ${path.relative(ROOT, out)}`);
    fs.rmSync(dataDir, { recursive: true, force: true });
    return;
  }

  if (opts.scale) {
    if (opts.scale !== 'provider') throw new Error(`Unknown --scale=${opts.scale} (provider is the one)`);
    try {
      const report = await scaleScenario({
        opts: { ...opts, connections: opts.connections === 50 ? 10 : opts.connections },
        apiMain: API_MAIN,
        apiEnv,
        secrets,
        started,
        databaseUrl: (db) => databaseUrl(opts.adminUrl, db),
        freePort,
        startProcess,
        stopProcess,
        waitReady,
        newApiKey,
        sha256,
        log,
      });
      const out = opts.out.endsWith('latest.json') ? path.join(ROOT, 'bench/results/scale-provider.json') : opts.out;
      fs.mkdirSync(path.dirname(out), { recursive: true });
      fs.writeFileSync(out, `${JSON.stringify({ generatedAt: new Date().toISOString(), machine: machine(), ...report }, null, 2)}\n`);
      log(`\nWritten to ${path.relative(ROOT, out)}`);
      if (opts.strict && report.targets.some((c) => !c.pass)) process.exitCode = 1;
    } finally {
      await cleanup();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
    return;
  }

  try {
    // 1. database: the API's migrations make the schema, then bulk SQL fills it.
    const t0 = Date.now();
    if (opts.reuseDb && (await isSeeded(dbUrl))) {
      log(`Reusing the seeded database ${opts.db}`);
    } else {
      log(`Creating ${opts.db} (dropped if it exists)`);
      await withClient(opts.adminUrl, async (c) => {
        await c.query(`DROP DATABASE IF EXISTS "${opts.db}" WITH (FORCE)`);
        await c.query(`CREATE DATABASE "${opts.db}"`);
      });
      const port = await freePort();
      const migrate = startProcess('api (migrations)', API_MAIN, apiEnv(port));
      started.push(migrate);
      await waitReady(migrate, port, '/health/ready');
      await stopProcess(migrate);
      started.pop();
      log(`Migrated by the API in ${((Date.now() - t0) / 1000).toFixed(1)} s; seeding`);
      const t1 = Date.now();
      await withClient(dbUrl, async (c) => {
        await c.query(fs.readFileSync(path.join(__dirname, 'seed.sql'), 'utf8'));
        await c.query('VACUUM ANALYZE');
      });
      log(`Seeded in ${((Date.now() - t1) / 1000).toFixed(1)} s`);
    }
    const creds = await insertCredentials(dbUrl);
    await withClient(dbUrl, (c) => c.query('VACUUM ANALYZE api_keys, sessions'));
    const tokens = {
      access: jwt.sign({ sid: creds.session, typ: 'access' }, secrets.JWT_SECRET, {
        algorithm: 'HS256',
        subject: creds.account,
        issuer: 'hosting-account-api',
        expiresIn: '6h',
      }),
    };
    const counts = await withClient(
      dbUrl,
      async (c) =>
        (
          await c.query(
            `SELECT (SELECT count(*) FROM accounts)::int AS accounts, (SELECT count(*) FROM services)::int AS services,
              (SELECT count(*) FROM services WHERE account_id = ${benchId(`'account-1'`)})::int AS big_account_services,
              (SELECT count(*) FROM notifications)::int AS notifications,
              (SELECT count(*) FROM notifications WHERE account_id = ${benchId(`'account-1'`)})::int AS big_account_notifications,
              (SELECT count(*) FROM api_keys)::int AS api_keys, (SELECT count(*) FROM sessions)::int AS sessions`,
          )
        ).rows[0],
    );
    log(`Data: ${JSON.stringify(counts)}`);

    // 2. the two servers, side by side on the same database
    const ports = { api: await freePort(), baseline: await freePort(), contract: await freePort() };
    const api = startProcess('api', API_MAIN, probedEnv(profileDir ? profiledEnv(apiEnv(ports.api)) : apiEnv(ports.api)));
    const baseline = startProcess('baseline', BASELINE, { ...baseEnv, PORT: String(ports.baseline) });
    // The list's second baseline: the same server answering the contract's fields only (issue 59).
    const contract = startProcess('contract', BASELINE, { ...baseEnv, PORT: String(ports.contract), BASELINE_LIST: 'contract' });
    started.push(api, baseline, contract);
    await Promise.all([
      waitReady(api, ports.api, '/health/ready'),
      waitReady(baseline, ports.baseline, '/health'),
      waitReady(contract, ports.contract, '/health'),
    ]);
    // Idle: ready, settled a moment, nothing asked yet; VmHWM then is the start's own peak.
    await sleep(3000);
    const idle = procStatus(api.child.pid);
    const sampler = new RssSampler([api, baseline]);

    // 3. the baseline must run the API's list SQL and give the API's bodies
    const sqlDrift = checkSqlParity(API_MAIN, creds.account);
    if (sqlDrift) throw new Error(sqlDrift);
    let list = scenarios(creds, tokens);
    if (opts.only) list = list.filter((s) => opts.only.includes(s.id));
    for (const s of list) {
      const parity = await checkParity(s, ports);
      if (!parity.ok) throw new Error(`Byte-for-byte check failed for ${s.id}:\n${parity.problems.join('\n')}`);
      s.bodyBytes = parity.bytes;
      log(`  same body from both: ${s.id} (${parity.bytes} bytes)`);
      if (!isList(s)) continue;
      const fields = await checkContractFields(s, ports);
      if (fields.problem) throw new Error(`The contract-only baseline differs for ${s.id}: ${fields.problem}`);
      s.contractBodyBytes = fields.bytes;
      log(`  the contract's fields of the same services from the second baseline: ${s.id} (${fields.bytes} bytes)`);
    }

    // 4. measure: warm-up, then rounds of A (API) B (baseline), then both at half the baseline's rate
    const rows = [];
    const load = { connections: opts.connections, duration: opts.duration };
    for (const s of list) {
      const runs = [];
      const pids = { api: api.child.pid, baseline: baseline.child.pid, contract: contract.child.pid };
      const run = async (server, phase, params) => {
        const cpuBefore = cpuMs(pids[server]);
        const result = summarise(await cannon(ports[server], s, params));
        result.cpuMsPerRequest = Math.round(((cpuMs(pids[server]) - cpuBefore) / Math.max(1, result.requests)) * 1000) / 1000;
        runs.push({ server, phase, ...result });
        log(
          `  ${s.id.padEnd(15)} ${phase.padEnd(8)} ${server.padEnd(8)} ${fmt(result.rps).padStart(6)} req/s  p50 ${result.p50} ms  p99 ${result.p99} ms  cpu ${fmt(result.cpuMsPerRequest, 2)} ms/req` +
            `${result.non2xx ? `  non2xx ${result.non2xx}` : ''}`,
        );
        return result;
      };
      await run('api', 'warm-up', { connections: opts.connections, duration: opts.warmup });
      await run('baseline', 'warm-up', { connections: opts.connections, duration: opts.warmup });
      if (isList(s)) await run('contract', 'warm-up', { connections: opts.connections, duration: opts.warmup });
      const rounds = { api: [], baseline: [], contract: [] };
      for (let i = 1; i <= opts.rounds; i++) {
        rounds.api.push(await run('api', `round ${i}`, load));
        rounds.baseline.push(await run('baseline', `round ${i}`, load));
        if (isList(s)) rounds.contract.push(await run('contract', `round ${i}`, load));
      }
      const agg = (rs) => ({
        rps: median(rs.map((r) => r.rps)),
        p50: median(rs.map((r) => r.p50)),
        p99: median(rs.map((r) => r.p99)),
        cpuMsPerRequest: median(rs.map((r) => r.cpuMsPerRequest)),
      });
      const row = {
        id: s.id,
        title: s.title,
        bodyBytes: s.bodyBytes,
        minRatio: s.minRatio,
        maxCpuRatio: s.maxCpuRatio ?? null,
        api: agg(rounds.api),
        baseline: agg(rounds.baseline),
        runs,
      };
      row.ratio = Math.round((row.api.rps / row.baseline.rps) * 100) / 100;
      if (isList(s)) {
        row.contract = { ...agg(rounds.contract), bodyBytes: s.contractBodyBytes };
        row.contractRatio = Math.round((row.api.rps / row.contract.rps) * 100) / 100;
      }
      const rate = Math.max(1, Math.floor(row.baseline.rps / 2));
      const fixed = { connections: opts.connections, duration: opts.duration, rate };
      const apiFixed = await run('api', '@rate', fixed);
      const baseFixed = await run('baseline', '@rate', fixed);
      row.fixedRate = {
        rate,
        api: { rps: apiFixed.rps, p50: apiFixed.p50, p99: apiFixed.p99 },
        baseline: { rps: baseFixed.rps, p50: baseFixed.p50, p99: baseFixed.p99 },
      };
      row.non2xx = runs.reduce((n, r) => n + r.non2xx + r.errors + r.timeouts, 0);
      rows.push(row);
    }

    let hostile = null;
    if (!opts.only || opts.only.includes('hostile-bodies')) {
      hostile = await measureHostileBodies(ports.api, api.child.pid, cpuMs, { repeat: opts.smoke ? 10 : 100 });
      printHostile(hostile);
    }

    // 4a. webhooks: deliveries per second from the API process against a bare sign-and-post loop
    let webhooksRow = null;
    if (!opts.only || opts.only.includes('webhooks')) {
      webhooksRow = await webhooksScenario({
        port: ports.api,
        apiPid: api.child.pid,
        cpuMs,
        apiKey: creds.apiKey,
        dbUrl,
        perEndpoint: Number(process.env.BENCH_WEBHOOK_BACKLOG) || (opts.smoke ? 50 : 500),
        rounds: opts.rounds,
        log,
      });
    }

    // 4b. the console: the proxy's throughput against a direct connection to the same VNC server
    let consoleRow = null;
    if (!opts.only || opts.only.includes('console')) {
      // The proxy runs in a second API process: the VNC server (the simulator's display) stays in
      // the first, so neither path shares a process with it, as with a real hypervisor's server.
      const proxyPort = await freePort();
      const proxy = startProcess('api (console proxy)', API_MAIN, apiEnv(proxyPort));
      started.push(proxy);
      await waitReady(proxy, proxyPort, '/health/ready');
      consoleRow = await consoleScenario({
        port: ports.api,
        proxyPort,
        proxyPid: proxy.child.pid,
        apiKey: creds.apiKey,
        accountId: creds.account,
        dbUrl,
        encryptionKey: secrets.ENCRYPTION_KEY,
        apiMain: API_MAIN,
        seconds: opts.duration,
        rounds: opts.rounds,
        log,
      });
    }

    // 4c. streams: many open notification streams on one API process of their own
    let streamsRow = null;
    if (!opts.only || opts.only.includes('streams')) {
      const streamsPort = await freePort();
      const streamsApi = startProcess('api (streams)', API_MAIN, {
        ...apiEnv(streamsPort),
        NOTIFICATIONS_MAX_STREAMS_PER_ACCOUNT: '10',
        NOTIFICATIONS_MAX_STREAMS_PER_IP: '100000',
      });
      started.push(streamsApi);
      await waitReady(streamsApi, streamsPort, '/health/ready');
      streamsRow = await streamsScenario({
        port: streamsPort,
        pid: streamsApi.child.pid,
        procStatus,
        keys: creds.keys,
        accountIds: creds.accountIds,
        dbUrl,
        streams: opts.streams ?? (opts.smoke ? 500 : 10_000),
        log,
      });
      if (streamsRow.missing || streamsRow.refused) log(`  streams API process's last words:\n${streamsApi.tail().slice(-2000)}`);
      await stopProcess(streamsApi);
    }

    // 4d. metrics: the route against a direct query_range to the same Prometheus (skipped without Prometheus)
    let metricsRow = null;
    if (!opts.only || opts.only.includes('metrics')) {
      metricsRow = await metricsScenario({
        apiMain: API_MAIN,
        apiEnv,
        freePort,
        startProcess,
        stopProcess,
        waitReady,
        cpuMs,
        dbUrl,
        accountId: creds.account,
        apiKey: creds.apiKey,
        duration: opts.duration,
        warmup: opts.warmup,
        rounds: opts.rounds,
        connections: opts.connections,
        cores: opts.metricsCores,
        log,
      });
    }

    // 4e. backups: only when named (it needs libvirt and the Ceph gateway, and takes minutes)
    const backupsRow = opts.only?.includes('backups')
      ? await backupsScenario({ rounds: opts.rounds, smallMb: opts.backupMb, transfer: opts.backupTransfer, log })
      : null;
    // 4f. volumes: only when named (libvirt, a TCG guest, and Ceph for the RBD volume)
    const volumesRow = opts.only?.includes('volumes') ? await volumesScenario({ rounds: opts.rounds, volumeMb: opts.volumeMb, log }) : null;
    // 4g. moves: only when named (two libvirtds of its own and a TCG guest)
    const movesRow = opts.only?.includes('moves') ? await movesScenario({ rounds: opts.rounds, log }) : null;

    const peak = sampler.stop();
    for (const p of [api, baseline]) if (p.child.exitCode !== null) throw new Error(`${p.name} died during the bench:\n${p.tail()}`);
    const liveSet = await heapLiveSet(api.child, heapProbeFile);
    await cleanup();
    if (profileDir) {
      const { summary, files } = writeProfileReport(profileDir, opts.profile);
      log(`\nCPU profile of the API (${summary.totalMs} ms sampled), by package or area:`);
      for (const o of summary.owners.slice(0, 12)) log(`  ${fmt(o.share, 1).padStart(5)}%  ${o.name}`);
      log(`Written to ${files.join(', ')}`);
      fs.rmSync(profileDir, { recursive: true, force: true });
    }

    // 5. report
    const rss = {
      api: { ...peak.api, peakMb: Math.round(Math.max(peak.api.hwmKb, peak.api.maxRssKb) / 1024) },
      baseline: { ...peak.baseline, peakMb: Math.round(Math.max(peak.baseline.hwmKb, peak.baseline.maxRssKb) / 1024) },
    };
    rss.api.idleMb = Math.round(idle.rssKb / 1024);
    rss.api.startPeakMb = Math.round(idle.hwmKb / 1024);
    rss.api.loadPeakMb = Math.round(peak.api.maxRssKb / 1024);
    rss.api.oldSpaceLiveMb = liveSet ? Math.round(liveSet.oldSpaceUsed / 1e6) : null;
    rss.api.heapLiveMb = liveSet ? Math.round(liveSet.heapUsed / 1e6) : null;
    printTable(rows);
    for (const r of rows.filter((row) => row.contract)) {
      log(
        `${r.id.padEnd(16)}against the contract's fields only: ${fmt(r.contract.rps)} req/s, p99 ${r.contract.p99} ms, ` +
          `cpu ${fmt(r.contract.cpuMsPerRequest, 2)} ms/req, ${r.contract.bodyBytes} bytes a page (the API's ${r.bodyBytes}): ratio ${fmt(r.contractRatio, 2)}`,
      );
    }
    log(
      `Peak RSS: API ${rss.api.peakMb} MB, baseline ${rss.baseline.peakMb} MB (VmHWM; API NODE_OPTIONS: ${opts.apiNodeOptions ?? 'none'}; arguments: ${opts.apiNodeArgs.join(' ') || 'none'})`,
    );
    log(
      `API memory: idle after start ${rss.api.idleMb} MB (the start's own peak ${rss.api.startPeakMb} MB), ` +
        `highest sampled under load ${rss.api.loadPeakMb} MB; after a full GC at the end: old space ${rss.api.oldSpaceLiveMb ?? '?'} MB, ` +
        `whole heap ${rss.api.heapLiveMb ?? '?'} MB`,
    );
    const checks = targetChecks(rows, rss, opts, hostile);
    if (consoleRow) {
      const mbps = (n) => `${(n / 1e6).toFixed(1)} MB/s`;
      log(
        `Console: proxy ${mbps(consoleRow.proxyBytesPerSecond)}, direct ${mbps(consoleRow.directBytesPerSecond)}, ratio ${consoleRow.ratio.toFixed(2)}`,
      );
      const peer = consoleRow.vsWebsockify;
      if (peer) {
        log(
          `Console vs websockify: websockify ${mbps(consoleRow.websockifyBytesPerSecond)}, throughput ratio ${peer.throughputRatio.toFixed(2)}; ` +
            `CPU per MB: proxy ${peer.proxyCpuMsPerMB} ms (${peer.proxyNetCpuMsPerMB} ms net of its idle CPU), websockify ${peer.websockifyCpuMsPerMB} ms`,
        );
        checks.push(
          {
            target: 'console: bytes/s through the proxy >= websockify',
            value: peer.throughputRatio,
            pass: peer.throughputRatio >= 1,
            ...(opts.smoke ? { informational: true } : {}),
          },
          {
            target: "console: proxy CPU per MB (net of the API process's idle CPU) <= websockify",
            value: `${peer.proxyNetCpuMsPerMB} ms vs ${peer.websockifyCpuMsPerMB} ms`,
            pass: peer.proxyNetCpuMsPerMB <= peer.websockifyCpuMsPerMB,
            ...(opts.smoke ? { informational: true } : {}),
          },
        );
      }
      checks.push({
        target: `console: bytes/s through the proxy >= ${consoleRow.minRatio} of a direct TCP connection`,
        value: consoleRow.ratio,
        pass: consoleRow.ratio >= consoleRow.minRatio,
        ...(opts.smoke ? { informational: true } : {}),
      });
    }
    if (streamsRow) {
      log(
        `Streams: ${streamsRow.streams} open, ${streamsRow.kbPerStream} KB each; commit to arrival p99 ${streamsRow.arrivalP99Ms} ms (max ${streamsRow.arrivalMaxMs} ms), missing ${streamsRow.missing}${streamsRow.refused ? `; refused after ${streamsRow.refused.afterOpen} of ${streamsRow.wanted}: ${streamsRow.refused.error}` : ''}`,
      );
      const inform = opts.smoke ? { informational: true } : {};
      checks.push(
        {
          target: 'streams: API memory per open stream < 20 KB',
          value: `${streamsRow.kbPerStream} KB`,
          pass: streamsRow.kbPerStream < 20,
          ...inform,
        },
        {
          target: 'streams: p99 from commit to arrival on every stream < 1 s, none missing',
          value: `${streamsRow.arrivalP99Ms} ms, ${streamsRow.missing} missing`,
          pass: streamsRow.arrivalP99Ms < 1000 && streamsRow.missing === 0 && !streamsRow.refused,
          ...inform,
        },
      );
    }
    if (metricsRow) {
      log(
        `Metrics: route ${metricsRow.api.rps} req/s (p50 ${metricsRow.api.p50} ms, p99 ${metricsRow.api.p99} ms), ` +
          `direct query_range ${metricsRow.direct.rps} req/s (p50 ${metricsRow.direct.p50} ms, p99 ${metricsRow.direct.p99} ms), ratio ${metricsRow.ratio}`,
      );
      checks.push({
        target: `metrics: route requests/s >= ${metricsRow.minRatio} of a direct query_range to the same Prometheus`,
        value: metricsRow.ratio,
        pass: metricsRow.ratio >= metricsRow.minRatio && metricsRow.failed === 0,
        ...(opts.smoke ? { informational: true } : {}),
      });
    }
    if (backupsRow) {
      log(
        `Backups: ${backupsRow.large.diskMb} MiB: API ${backupsRow.apiMbPerSecond} MB/s, bare pipeline ${backupsRow.bareMbPerSecond} MB/s, ratio ${backupsRow.ratio} ` +
          `(${backupsRow.small.diskMb} MiB: ratio ${backupsRow.small.ratio}); ` +
          `peak RSS ${backupsRow.peakRssMb.small} MB (${backupsRow.peakRssMb.smallDiskMb} MiB disk), ${backupsRow.peakRssMb.large} MB (${backupsRow.peakRssMb.largeDiskMb} MiB)`,
      );
      checks.push(
        {
          target: `backups: MB/s to the gateway (${backupsRow.large.diskMb} MiB disk) >= ${backupsRow.minRatio} of qemu-img convert and the same multipart upload`,
          value: backupsRow.ratio,
          pass: backupsRow.ratio >= backupsRow.minRatio,
        },
        {
          target: `backups: peak RSS for a disk 4x larger within ${backupsRow.maxRssGrowth}x`,
          value: backupsRow.rssGrowth,
          pass: backupsRow.rssGrowth <= backupsRow.maxRssGrowth,
        },
      );
    }
    // Informational, no target: a TCG guest, and the one-node Ceph keeps its objects in memory.
    if (volumesRow) for (const line of volumesSummary(volumesRow)) log(line);
    if (movesRow) for (const line of movesSummary(movesRow)) log(line);
    if (webhooksRow) {
      log(
        `Webhooks: API ${webhooksRow.apiPerSecond}/s, bare loop ${webhooksRow.barePerSecond}/s, ratio ${webhooksRow.ratio}; ` +
          `beside an endpoint answering in 5 s ${webhooksRow.withSlowEndpointPerSecond}/s (${webhooksRow.slowEndpointRatio} of alone)`,
      );
      checks.push(
        {
          target: 'webhooks: deliveries/s from one API process >= 0.5 of a bare sign-and-post loop',
          value: webhooksRow.ratio,
          pass: webhooksRow.ratio >= 0.5,
          ...(opts.smoke ? { informational: true } : {}),
        },
        {
          target: 'webhooks: an endpoint answering in 5 s leaves the others >= 0.9 of their rate',
          value: webhooksRow.slowEndpointRatio,
          pass: webhooksRow.slowEndpointRatio >= 0.9,
          ...(opts.smoke ? { informational: true } : {}),
        },
      );
    }
    log('');
    log(opts.smoke ? 'Targets (informational in smoke mode):' : 'Targets:');
    for (const c of checks)
      log(`  ${c.pass ? 'PASS' : 'FAIL'}  ${c.target}: ${typeof c.value === 'number' ? c.value.toFixed(2) : c.value}`);
    const report = {
      generatedAt: new Date().toISOString(),
      mode: opts.smoke ? 'smoke' : 'full',
      machine: machine(),
      settings: {
        connections: opts.connections,
        durationSeconds: opts.duration,
        warmupSeconds: opts.warmup,
        rounds: opts.rounds,
        dbPoolSize: opts.pool ? Number(opts.pool) : 'API default',
        api: path.relative(ROOT, API_MAIN),
        apiNodeOptions: opts.apiNodeOptions ?? null,
        apiNodeArgs: opts.apiNodeArgs,
        order: 'per scenario: warm-up API, warm-up baseline, then rounds of API, baseline; then both at half the baseline rate',
      },
      data: counts,
      scenarios: rows,
      hostileBodies: hostile,
      console: consoleRow,
      webhooks: webhooksRow,
      streams: streamsRow,
      metrics: metricsRow,
      backups: backupsRow,
      volumes: volumesRow,
      moves: movesRow,
      rss,
      targets: checks,
    };
    fs.mkdirSync(path.dirname(opts.out), { recursive: true });
    fs.writeFileSync(opts.out, `${JSON.stringify(report, null, 2)}\n`);
    log(`\nWritten to ${path.relative(ROOT, opts.out)}`);
    const failedRuns = rows.some((r) => r.non2xx > 0);
    if (failedRuns || (opts.strict && checks.some((c) => !c.pass))) process.exitCode = 1;
  } finally {
    await cleanup();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

/** The baseline's list SQL must be the API's: compared with the built ServicesRepository.pageStatement and the VPS part's statement. */
function checkSqlParity(apiMain, accountId) {
  const libs = path.resolve(path.dirname(apiMain), '../../../libs');
  const built = path.join(libs, 'services/src/services.repository.js');
  const builtInstances = path.join(libs, 'vps/src/instances/vps-instances.repository.js');
  let apiQueries;
  let apiInstancesSql;
  try {
    apiQueries = require(built).ServicesRepository;
    apiInstancesSql = require(builtInstances).INSTANCE_SUMMARIES_SQL;
  } catch (err) {
    log(`  (could not load ${path.relative(ROOT, built)} and its VPS part to compare the list SQL: ${err.message})`);
    return null;
  }
  const ours = require(BASELINE);
  for (const page of [
    { page: 1, pageSize: 10 },
    { page: 1000, pageSize: 100 },
  ]) {
    const a = apiQueries.pageStatement(accountId, {}, page);
    const b = ours.listServicesQuery(accountId, {}, page);
    if (a.text !== b.text || JSON.stringify(a.values) !== JSON.stringify(b.values)) {
      return `The baseline's list SQL differs from ServicesRepository.pageStatement (libs/services/src/services.repository.ts): update bench/baseline/server.js.\nAPI:\n${a.text}\nbaseline:\n${b.text}`;
    }
  }
  if (apiInstancesSql !== ours.INSTANCES_SQL) {
    return `The baseline's VPS part differs from INSTANCE_SUMMARIES_SQL (libs/vps/src/instances/vps-instances.repository.ts): update bench/baseline/server.js.\nAPI:\n${apiInstancesSql}\nbaseline:\n${ours.INSTANCES_SQL}`;
  }
  log('  same list SQL in both (ServicesRepository.pageStatement, INSTANCE_SUMMARIES_SQL)');
  return null;
}

main().catch((err) => {
  process.stderr.write(`bench failed: ${err.stack ?? err}\n`);
  process.exit(1);
});
