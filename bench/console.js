'use strict';
// The console scenario: bytes per second of framebuffer updates read through the console proxy
// (WebSocket on an API process's port) against a direct TCP connection to the same VNC server (the
// simulator's display inside another API process). Each run is one client asking for full screens,
// IN_FLIGHT requests outstanding, for the run's duration; runs alternate proxy, websockify (the
// console proxy of OpenStack, Debian's `websockify`, when installed), direct. For both proxies the
// CPU their process used per MB carried is reported too.
const { spawn, spawnSync } = require('node:child_process');
const { createDecipheriv } = require('node:crypto');
const fs = require('node:fs');
const net = require('node:net');
const path = require('node:path');
const http = require('node:http');
const { WebSocket, createWebSocketStream } = require('ws');
const { Client } = require('pg');

const MIN_RATIO = 0.7;
const IN_FLIGHT = 4;
/** A run that has not finished this long after its measuring time is stuck: the bench fails instead of waiting. */
const STALL_MS = 30_000;

/** CPU time (user + system) of a process and its reaped children (websockify forks one per connection), in ms. */
function cpuWithChildrenMs(pid) {
  try {
    const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return ((Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) * 1000) / CLOCK_TICKS;
  } catch {
    return NaN;
  }
}
const CLOCK_TICKS = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout?.trim()) || 100;

/** Debian's websockify, or null when it is not installed. */
function websockifyBinary() {
  const found = spawnSync('sh', ['-c', 'command -v websockify'], { encoding: 'utf8' }).stdout?.trim();
  return found || null;
}

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

/** websockify listening on a free loopback port in front of `target`; resolves once it accepts connections. */
async function startWebsockify(binary, target) {
  const port = await freePort();
  const child = spawn(binary, [`127.0.0.1:${port}`, `${target.host}:${target.port}`], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (c) => (stderr = (stderr + c).slice(-4000)));
  const until = Date.now() + 15_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`websockify exited with ${child.exitCode}: ${stderr}`);
    const up = await new Promise((resolve) => {
      const probe = net.connect({ host: '127.0.0.1', port }, () => (probe.destroy(), resolve(true)));
      probe.on('error', () => resolve(false));
    });
    if (up) break;
    if (Date.now() > until) throw new Error(`websockify did not listen within 15 s: ${stderr}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  // The probe's connection forked a child that exits at once: let it be reaped before measuring.
  await new Promise((r) => setTimeout(r, 300));
  const stop = () =>
    new Promise((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once('exit', resolve);
      child.kill('SIGTERM');
    });
  return { port, pid: child.pid, stop };
}

/** The sealed console target (AES-256-GCM, `v1.<iv>.<tag>.<data>`), as the API's SecretBox wrote it. */
function openSealed(sealed, keyBase64) {
  const [, iv, tag, data] = sealed.split('.');
  const decipher = createDecipheriv('aes-256-gcm', Buffer.from(keyBase64, 'base64'), Buffer.from(iv, 'base64url'));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return JSON.parse(Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8'));
}

function getJson(port, urlPath, apiKey) {
  return new Promise((resolve, reject) => {
    const req = http.get(
      { host: '127.0.0.1', port, path: urlPath, headers: { authorization: `Bearer ${apiKey}` }, agent: false },
      (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () =>
          res.statusCode === 200
            ? resolve(JSON.parse(Buffer.concat(chunks)))
            : reject(new Error(`GET ${urlPath}: ${res.statusCode} ${Buffer.concat(chunks)}`)),
        );
      },
    );
    req.on('error', reject);
  });
}

/** Exact-length reads from a stream, for the handshake; a read after the stream closed rejects too. */
function reader(stream) {
  let buffered = Buffer.alloc(0);
  let waiting = null;
  let closed = false;
  const deliver = () => {
    if (waiting && buffered.length >= waiting.n) {
      const chunk = buffered.subarray(0, waiting.n);
      buffered = buffered.subarray(waiting.n);
      const { resolve } = waiting;
      waiting = null;
      resolve(chunk);
    } else if (waiting && closed) {
      waiting.reject(new Error('closed during the handshake'));
      waiting = null;
    }
  };
  const onData = (chunk) => {
    buffered = Buffer.concat([buffered, chunk]);
    deliver();
  };
  stream.on('data', onData);
  stream.on('close', () => ((closed = true), deliver()));
  return {
    read: (n) => new Promise((resolve, reject) => ((waiting = { n, resolve, reject }), deliver())),
    detach: () => (stream.off('data', onData), buffered),
  };
}

/** RFB handshake with VNC authentication; returns the size of one full Raw update in bytes. */
async function handshake(stream, password, vncResponse) {
  const r = reader(stream);
  await r.read(12);
  stream.write('RFB 003.008\n');
  await r.read((await r.read(1))[0]);
  stream.write(Buffer.from([2]));
  stream.write(vncResponse(password, await r.read(16)));
  if ((await r.read(4)).readUInt32BE(0) !== 0) throw new Error('VNC authentication failed');
  stream.write(Buffer.from([1]));
  const init = await r.read(24);
  await r.read(init.readUInt32BE(20));
  const [width, height] = [init.readUInt16BE(0), init.readUInt16BE(2)];
  return { width, height, frameBytes: 4 + 12 + width * height * (init[4] / 8), leftover: r.detach() };
}

/**
 * Full-screen update requests, IN_FLIGHT outstanding, for `seconds`: bytes per second received.
 * `close` ends the connection when the time is up.
 */
async function measure(stream, close, password, seconds, vncResponse) {
  const { width, height, frameBytes, leftover } = await handshake(stream, password, vncResponse);
  const request = Buffer.alloc(10);
  request.writeUInt8(3, 0);
  request.writeUInt16BE(width, 6);
  request.writeUInt16BE(height, 8);
  let received = leftover.length;
  let requested = IN_FLIGHT;
  stream.write(Buffer.concat(Array(IN_FLIGHT).fill(request)));
  const started = process.hrtime.bigint();
  const clientCpu = process.cpuUsage();
  return new Promise((resolve, reject) => {
    const finish = () => {
      stream.removeAllListeners('data');
      close();
      const elapsed = Number(process.hrtime.bigint() - started) / 1e9;
      const { user, system } = process.cpuUsage(clientCpu);
      resolve({
        bytes: received,
        seconds: elapsed,
        bytesPerSecond: received / elapsed,
        frames: Math.floor(received / frameBytes),
        clientCpuMsPerMB: Math.round(((user + system) / 1000 / (received / 1e6)) * 100) / 100,
      });
    };
    setTimeout(finish, seconds * 1000);
    stream.on('error', reject);
    stream.on('data', (chunk) => {
      received += chunk.length;
      while (received > (requested - IN_FLIGHT) * frameBytes) {
        stream.write(request);
        requested++;
      }
    });
  });
}

/**
 * Runs the scenario: consoles of a running VPS of the bench account are opened on the API at
 * `port` (whose simulator holds the VNC server) and proxied by the API at `proxyPort`; the direct
 * path reads the target from console_sessions with the bench's ENCRYPTION_KEY.
 */
async function consoleScenario({ port, proxyPort, proxyPid, apiKey, accountId, dbUrl, encryptionKey, apiMain, seconds, rounds, log }) {
  const { vncResponse } = require(path.resolve(path.dirname(apiMain), '../../../libs/vps/src/compute/simulated-vnc/vnc-auth.js'));
  const db = new Client({ connectionString: dbUrl });
  await db.connect();
  try {
    const { rows } = await db.query(
      `SELECT s.id FROM services s JOIN vps_instances v ON v.service_id = s.id
        WHERE s.account_id = $1 AND s.status = 'active' AND v.power_state = 'running' ORDER BY s.id LIMIT 1`,
      [accountId],
    );
    if (!rows.length) throw new Error('console scenario: the bench account has no running VPS');
    const serviceId = rows[0].id;
    const open = async () => {
      const session = await getJson(port, `/api/services/${serviceId}/instance/console`, apiKey);
      const url = new URL(session.url);
      const sealed = (
        await db.query(`SELECT target_sealed FROM console_sessions WHERE service_id = $1 ORDER BY created_at DESC LIMIT 1`, [serviceId])
      ).rows[0];
      return {
        session,
        wsUrl: `ws://127.0.0.1:${proxyPort}${url.pathname}${url.search}`,
        target: openSealed(sealed.target_sealed, encryptionKey),
      };
    };
    // The API's proxy is a whole API process (job polling, schedulers, LISTEN): its CPU while idle,
    // over as long as a run, is taken off its CPU per MB (cpuMsPerMB keeps the gross figure).
    const idleStart = cpuWithChildrenMs(proxyPid);
    await new Promise((r) => setTimeout(r, seconds * 1000));
    const proxyIdleMsPerSecond = (cpuWithChildrenMs(proxyPid) - idleStart) / seconds;
    log(`  console         proxy process idle: ${proxyIdleMsPerSecond.toFixed(1)} ms of CPU per second`);
    /** Bytes/s through a WebSocket, and the CPU the proxying process used meanwhile. */
    const viaWebSocket = async (wsUrl, password, pid, idleMsPerSecond = 0) => {
      const cpuBefore = cpuWithChildrenMs(pid);
      const ws = new WebSocket(wsUrl, ['binary'], { perMessageDeflate: false });
      // Listening from the start: the proxy's first frame can arrive with the 101 response, and ws
      // delivers it before the continuation of an await on 'open' could attach a listener.
      const stream = createWebSocketStream(ws);
      await new Promise((resolve, reject) => (ws.once('open', resolve), ws.once('error', reject)));
      const closed = new Promise((resolve) => ws.once('close', resolve));
      const result = await measure(stream, () => stream.end(), password, seconds, vncResponse);
      // Let the proxy record the close before the next console (the per-account limit counts it).
      await closed;
      // websockify's per-connection child is counted once it has exited and been reaped.
      await new Promise((r) => setTimeout(r, 300));
      const cpu = cpuWithChildrenMs(pid) - cpuBefore;
      const perMB = (ms) => Math.round((ms / (result.bytes / 1e6)) * 100) / 100;
      return {
        ...result,
        cpuMs: cpu,
        cpuMsPerMB: perMB(cpu),
        netCpuMsPerMB: perMB(Math.max(0, cpu - idleMsPerSecond * (result.seconds + 0.3))),
      };
    };
    const viaProxy = async () => {
      const { session, wsUrl } = await open();
      return viaWebSocket(wsUrl, session.password, proxyPid, proxyIdleMsPerSecond);
    };
    const websockify = websockifyBinary();
    if (!websockify) log('  console: websockify is not installed (apt-get install websockify): measured without it');
    const viaWebsockify = async () => {
      const { session, target } = await open();
      const server = await startWebsockify(websockify, target);
      try {
        return await viaWebSocket(`ws://127.0.0.1:${server.port}/`, session.password, server.pid);
      } finally {
        await server.stop();
      }
    };
    const direct = async () => {
      const { session, target } = await open();
      const socket = net.connect({ host: target.host, port: target.port, noDelay: true });
      await new Promise((resolve, reject) => (socket.once('connect', resolve), socket.once('error', reject)));
      return measure(socket, () => socket.destroy(), session.password, seconds, vncResponse);
    };
    const bounded = (fn, who) => () => {
      let timer;
      const stalled = new Promise((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`console scenario: the ${who} run did not finish within ${seconds} s + ${STALL_MS / 1000} s`)),
          seconds * 1000 + STALL_MS,
        );
      });
      return Promise.race([fn(), stalled]).finally(() => clearTimeout(timer));
    };
    const paths = [
      [bounded(viaProxy, 'proxy'), 'proxy'],
      ...(websockify ? [[bounded(viaWebsockify, 'websockify'), 'websockify']] : []),
      [bounded(direct, 'direct'), 'direct'],
    ];
    const runs = [];
    const mb = (r) =>
      `${(r.bytesPerSecond / 1e6).toFixed(1)} MB/s (${r.frames} screens)${r.cpuMsPerMB === undefined ? '' : `  cpu ${r.cpuMsPerMB} ms/MB (net of idle ${r.netCpuMsPerMB})`}  client cpu ${r.clientCpuMsPerMB} ms/MB`;
    for (const [fn, who] of paths) {
      const r = await fn();
      log(`  console         warm-up  ${who.padEnd(10)} ${mb(r)}`);
    }
    for (let i = 1; i <= rounds; i++) {
      for (const [fn, who] of paths) {
        const r = await fn();
        runs.push({ server: who, phase: `round ${i}`, ...r });
        log(`  console         round ${i}  ${who.padEnd(10)} ${mb(r)}`);
      }
    }
    const median = (values) => (values.length ? [...values].sort((a, b) => a - b)[values.length >> 1] : null);
    const of = (who, field) => median(runs.filter((r) => r.server === who).map((r) => r[field]));
    const proxy = of('proxy', 'bytesPerSecond');
    const directBps = of('direct', 'bytesPerSecond');
    const peer = of('websockify', 'bytesPerSecond');
    return {
      id: 'console',
      title: 'VNC framebuffer through the console proxy (WebSocket), websockify and direct TCP to the same VNC server',
      proxyBytesPerSecond: Math.round(proxy),
      directBytesPerSecond: Math.round(directBps),
      websockifyBytesPerSecond: peer === null ? null : Math.round(peer),
      ratio: Math.round((proxy / directBps) * 100) / 100,
      /** The API's proxy against websockify: throughput (higher is better) and CPU per MB (websockify's / ours: higher is better). */
      vsWebsockify:
        peer === null
          ? null
          : {
              throughputRatio: Math.round((proxy / peer) * 100) / 100,
              proxyCpuMsPerMB: of('proxy', 'cpuMsPerMB'),
              proxyNetCpuMsPerMB: of('proxy', 'netCpuMsPerMB'),
              websockifyCpuMsPerMB: of('websockify', 'cpuMsPerMB'),
              cpuRatio: Math.round((of('websockify', 'cpuMsPerMB') / of('proxy', 'netCpuMsPerMB')) * 100) / 100,
            },
      proxyIdleMsPerSecond: Math.round(proxyIdleMsPerSecond * 10) / 10,
      minRatio: MIN_RATIO,
      runs,
    };
  } finally {
    await db.end();
  }
}

module.exports = { consoleScenario };
