'use strict';
// Wide JSON against the public login route: the CPU each body costs the API
// and how long /health/live waits meanwhile. Bodies within the JSON guard's caps reach validation;
// the 80,000-key body of the security review must be refused before it.
const http = require('node:http');

const PAD = 'x'.repeat(400);

function object(keys, value) {
  return Object.fromEntries(Array.from({ length: keys }, (_, i) => [`k${i}`, value(i)]));
}

/** Each shape is the widest the guard lets through in its own way (100 keys, 100 items, 2,000 values). */
function hostileBodies() {
  return [
    { id: 'flat-100-keys', body: { email: 'a@example.test', password: 'x'.repeat(20), ...object(98, () => PAD) }, accepted: true },
    { id: '20x99-objects', body: object(20, () => object(99, () => 1)), accepted: true },
    { id: '20x99-arrays', body: object(20, () => Array.from({ length: 99 }, () => PAD.slice(0, 40))), accepted: true },
    { id: 'deep-and-wide', body: nest(31, () => object(60, () => 'v')), accepted: true },
    { id: 'review-80k-keys', body: object(80_000, () => 1), accepted: false },
    { id: 'array-100k-items', body: { email: Array.from({ length: 100_000 }, () => 1) }, accepted: false },
  ].map((s) => ({ ...s, json: JSON.stringify(s.body) }));
}

function nest(depth, leaf) {
  let value = leaf();
  for (let i = 0; i < depth; i++) value = { [`l${i}`]: value, ...object(1, () => 1) };
  return value;
}

function send(port, method, urlPath, body) {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const headers = body ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } : {};
    const req = http.request({ host: '127.0.0.1', port, method, path: urlPath, headers, agent: false }, (res) => {
      let bytes = 0;
      res.on('data', (c) => (bytes += c.length));
      res.on('end', () => resolve({ status: res.statusCode, bytes, ms: Number(process.hrtime.bigint() - started) / 1e6 }));
    });
    req.on('error', reject);
    req.setTimeout(30_000, () => req.destroy(new Error('timeout')));
    req.end(body);
  });
}

const pct = (values, p) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length ? Math.round(sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] * 10) / 10 : null;
};

/** Sends each body `repeat` times on two connections while /health/live is polled every 10 ms. */
async function measureHostileBodies(port, pid, cpuMs, { repeat }) {
  const rows = [];
  for (const shape of hostileBodies()) {
    const health = [];
    let done = false;
    const poller = (async () => {
      while (!done) {
        health.push((await send(port, 'GET', '/health/live')).ms);
        await new Promise((r) => setTimeout(r, 10));
      }
    })();
    const cpuBefore = cpuMs(pid);
    const answers = [];
    const worker = async () => {
      while (answers.length < repeat) answers.push(await send(port, 'POST', '/api/auth/login', shape.json));
    };
    await Promise.all([worker(), worker()]);
    const cpu = (cpuMs(pid) - cpuBefore) / answers.length;
    done = true;
    await poller;
    rows.push({
      id: shape.id,
      accepted: shape.accepted,
      bodyBytes: Buffer.byteLength(shape.json),
      statuses: [...new Set(answers.map((a) => a.status))],
      responseBytes: Math.max(...answers.map((a) => a.bytes)),
      requests: answers.length,
      cpuMsPerRequest: Math.round(cpu * 100) / 100,
      latencyP50: pct(
        answers.map((a) => a.ms),
        50,
      ),
      latencyMax: pct(
        answers.map((a) => a.ms),
        100,
      ),
      healthP99: pct(health, 99),
      healthMax: pct(health, 100),
    });
  }
  return rows;
}

module.exports = { measureHostileBodies };
