'use strict';
// The console scenario: bytes per second of framebuffer updates read through the console proxy
// (WebSocket on an API process's port) against a direct TCP connection to the same VNC server (the
// simulator's display inside another API process). Each run is one client asking for full screens,
// IN_FLIGHT requests outstanding, for the run's duration; runs alternate proxy, direct.
const { createDecipheriv } = require('node:crypto');
const net = require('node:net');
const path = require('node:path');
const http = require('node:http');
const { WebSocket, createWebSocketStream } = require('ws');
const { Client } = require('pg');

const MIN_RATIO = 0.7;
const IN_FLIGHT = 4;
/** A run that has not finished this long after its measuring time is stuck: the bench fails instead of waiting. */
const STALL_MS = 30_000;

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
  return new Promise((resolve, reject) => {
    const finish = () => {
      stream.removeAllListeners('data');
      close();
      const elapsed = Number(process.hrtime.bigint() - started) / 1e9;
      resolve({ bytes: received, seconds: elapsed, bytesPerSecond: received / elapsed, frames: Math.floor(received / frameBytes) });
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
async function consoleScenario({ port, proxyPort, apiKey, accountId, dbUrl, encryptionKey, apiMain, seconds, rounds, log }) {
  const { vncResponse } = require(path.resolve(path.dirname(apiMain), '../../../libs/services/src/instance/console/rfb/vnc-auth.js'));
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
    const viaProxy = async () => {
      const { session, wsUrl } = await open();
      const ws = new WebSocket(wsUrl, ['binary'], { perMessageDeflate: false });
      // Listening from the start: the proxy's first frame can arrive with the 101 response, and ws
      // delivers it before the continuation of an await on 'open' could attach a listener.
      const stream = createWebSocketStream(ws);
      await new Promise((resolve, reject) => (ws.once('open', resolve), ws.once('error', reject)));
      const closed = new Promise((resolve) => ws.once('close', resolve));
      const result = await measure(stream, () => stream.end(), session.password, seconds, vncResponse);
      // Let the proxy record the close before the next console (the per-account limit counts it).
      await closed;
      return result;
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
    const runs = [];
    const mb = (r) => `${(r.bytesPerSecond / 1e6).toFixed(1)} MB/s (${r.frames} screens)`;
    for (const [phase, fn, who] of [
      ['warm-up', bounded(viaProxy, 'proxy'), 'proxy'],
      ['warm-up', bounded(direct, 'direct'), 'direct'],
    ]) {
      const r = await fn();
      log(`  console         ${phase.padEnd(8)} ${who.padEnd(8)} ${mb(r)}`);
    }
    for (let i = 1; i <= rounds; i++) {
      for (const [fn, who] of [
        [bounded(viaProxy, 'proxy'), 'proxy'],
        [bounded(direct, 'direct'), 'direct'],
      ]) {
        const r = await fn();
        runs.push({ server: who, phase: `round ${i}`, ...r });
        log(`  console         round ${i}  ${who.padEnd(8)} ${mb(r)}`);
      }
    }
    const median = (values) => [...values].sort((a, b) => a - b)[values.length >> 1];
    const proxy = median(runs.filter((r) => r.server === 'proxy').map((r) => r.bytesPerSecond));
    const directBps = median(runs.filter((r) => r.server === 'direct').map((r) => r.bytesPerSecond));
    return {
      id: 'console',
      title: 'VNC framebuffer through the console proxy (WebSocket) vs direct TCP to the same VNC server',
      proxyBytesPerSecond: Math.round(proxy),
      directBytesPerSecond: Math.round(directBps),
      ratio: Math.round((proxy / directBps) * 100) / 100,
      minRatio: MIN_RATIO,
      runs,
    };
  } finally {
    await db.end();
  }
}

module.exports = { consoleScenario };
