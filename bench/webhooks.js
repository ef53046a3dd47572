'use strict';
// The webhooks scenario: deliveries per second from one API process to a loopback receiver that
// answers at once, against a bare loop that signs and posts the same bodies with the same HTTP
// client (node:http, a kept connection per endpoint, as libs/webhooks/src/delivery/webhook-sender.ts),
// one request in flight per endpoint in both. Then the same backlog again while one more endpoint
// takes 5 s per answer: the others' rate may not drop (one attempt in flight per endpoint). A tenth
// of the backlog goes through both first, unmeasured; then rounds of API and bare loop (3 in full mode).
//
// Both rates are the receiver's, first arrival to last (deliveries/s once sending; the time from the
// commit to the first arrival is reported beside it, not counted: the commit's NOTIFY wakes the API's loop).
// The backlog is inserted in one transaction (deliveries and their pg-boss job, as the API's
// fan-out writes them: one waiting job per endpoint), so the API starts on all of it at once.
const { randomBytes } = require('node:crypto');
const { fork } = require('node:child_process');
const http = require('node:http');
const path = require('node:path');
const { Client } = require('pg');

const FAST_ENDPOINTS = 4;
const SLOW_ANSWER_MS = 5_000;
/** A run that has not delivered everything by then is stuck. */
const STALL_MS = 120_000;

/** The loopback receiver: /fast/<n> answers at once, /slow after SLOW_ANSWER_MS; it records arrival times. */
function startReceiver() {
  const arrivals = [];
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const slow = req.url.startsWith('/slow');
      if (!slow) arrivals.push(performance.now());
      const answer = () => res.writeHead(204).end();
      if (slow) setTimeout(answer, SLOW_ANSWER_MS);
      else answer();
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({ port: server.address().port, arrivals, close: () => new Promise((r) => server.close(r)) }),
    ),
  );
}

function postJson(port, path, apiKey, body) {
  return new Promise((resolve, reject) => {
    const data = JSON.stringify(body);
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        path,
        method: 'POST',
        agent: false,
        headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(data) },
      },
      (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString();
          if (res.statusCode >= 300) reject(new Error(`POST ${path}: ${res.statusCode} ${text}`));
          else resolve(JSON.parse(text));
        });
      },
    );
    req.on('error', reject);
    req.end(data);
  });
}

/** A body shaped as the API's fan-out writes one (libs/webhooks/src/delivery/deliveries.service.ts enqueue). */
const BODY_SQL = `json_build_object('type', 'ticket.reply', 'timestamp', to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
  'data', json_build_object('id', gen_random_uuid(), 'entity', json_build_object('type', 'ticket', 'id', gen_random_uuid()),
    'actor', json_build_object('type', 'api_key', 'id', gen_random_uuid(), 'name', 'bench key 1'), 'status', 'succeeded',
    'createdAt', to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
    'details', json_build_object('messageId', gen_random_uuid(), 'attachments', 0)))::text`;

/** `perEndpoint` pending deliveries for each endpoint and the jobs the fan-out leaves for them, committed together. */
async function insertBacklog(db, endpointIds, perEndpoint) {
  await db.query('BEGIN');
  const { rows } = await db.query(
    `INSERT INTO webhook_deliveries (endpoint_id, message_id, event_type, body, next_attempt_at, retry_until)
     SELECT e, 'msg_' || replace(gen_random_uuid()::text, '-', ''), 'ticket.reply', ${BODY_SQL}, now(), now() + interval '1 day'
       FROM unnest($1::uuid[]) e CROSS JOIN generate_series(1, $2) g
     RETURNING id, message_id, body, endpoint_id`,
    [endpointIds, perEndpoint],
  );
  // libs/core/src/jobs/pg-boss-job-queue.ts send, with the delivery outbox's JOB_OPTIONS and job:
  // deliveries to one endpoint committed together leave one waiting job (coalesceKey `endpoint:<id>`).
  await db.query(
    `INSERT INTO pgboss.job (name, data, retry_limit, retry_delay, retry_backoff, singleton_key)
     SELECT DISTINCT ON (e) 'webhook-delivery', json_build_object('endpointId', e, 'deliveryId', id, 'attempt', 0)::jsonb, 3, 5, true,
            'endpoint:' || e
       FROM unnest($1::uuid[], $2::uuid[]) AS j(id, e)`,
    [rows.map((r) => r.id), rows.map((r) => r.endpoint_id)],
  );
  // The send's notice (JOB_WAKE_CHANNEL), delivered at the commit: the API's loop fetches at once, not at its next poll.
  await db.query(`SELECT pg_notify('job_wake', 'webhook-delivery')`);
  await db.query('COMMIT');
  return { rows, committedAt: performance.now() };
}

/**
 * Transactions committed in the database so far. Backends report them within 10 s of going idle
 * (PostgreSQL's statistics), so the reading waits that long first.
 */
async function committedTransactions(db) {
  await new Promise((r) => setTimeout(r, 11_000));
  const { rows } = await db.query('SELECT xact_commit::bigint AS n FROM pg_stat_database WHERE datname = current_database()');
  return Number(rows[0].n);
}

async function waitFor(predicate, what) {
  const until = Date.now() + STALL_MS;
  while (!predicate()) {
    if (Date.now() > until) throw new Error(`webhooks scenario: ${what} not done within ${STALL_MS / 1000} s`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * The bare loop, in a process of its own as the API is (bench/webhooks-bare.js): each side of a
 * delivery then pays the same hop between processes. (Run inside this process, beside the receiver,
 * it answered itself without one and ran at up to twice its own rate.)
 */
function bareLoop(receiverPort, rows, secretKey) {
  return new Promise((resolve, reject) => {
    const child = fork(path.join(__dirname, 'webhooks-bare.js'), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    child.once('message', (message) => {
      child.kill();
      if (message.error) reject(new Error(`webhooks bare loop: ${message.error}`));
      else resolve(message.rate);
    });
    child.once('exit', (code) => code && reject(new Error(`webhooks bare loop exited with ${code}`)));
    child.send({
      receiverPort,
      secretKey: secretKey.toString('base64'),
      rows: rows.map((r) => ({ endpoint_id: r.endpoint_id, message_id: r.message_id, body: r.body })),
    });
  });
}

async function webhooksScenario({ port, apiPid, cpuMs, apiKey, dbUrl, perEndpoint, rounds: roundCount = 1, log }) {
  const receiver = await startReceiver();
  const db = new Client({ connectionString: dbUrl });
  await db.connect();
  try {
    const make = (path) =>
      postJson(port, '/api/webhooks', apiKey, { url: `http://127.0.0.1:${receiver.port}${path}`, events: ['ticket.reply'] });
    const fast = [];
    for (let i = 0; i < FAST_ENDPOINTS; i++) fast.push((await make(`/fast/${i}`)).id);
    const slow = (await make('/slow')).id;
    const fastIds = fast;

    const apiRun = async (withSlow, backlog = perEndpoint) => {
      receiver.arrivals.length = 0;
      const cpuBefore = cpuMs(apiPid);
      if (withSlow) await insertBacklog(db, [slow], 3);
      const { committedAt, rows } = await insertBacklog(db, fastIds, backlog);
      await waitFor(() => receiver.arrivals.length >= rows.length, 'the API deliveries');
      const cpu = cpuMs(apiPid) - cpuBefore;
      return {
        rows,
        rate: arrivalRate(),
        // Until the first arrival: the commit's NOTIFY wakes the API's job loop (before it, its next poll: JOBS_POLL_INTERVAL_MS).
        firstAfterMs: Math.round(receiver.arrivals[0] - committedAt),
        cpuMsPerDelivery: Math.round((cpu / rows.length) * 100) / 100,
      };
    };
    /** Deliveries/s as the receiver saw them, first arrival to last: the same measure for both senders. */
    const arrivalRate = () =>
      (receiver.arrivals.length - 1) / ((receiver.arrivals[receiver.arrivals.length - 1] - receiver.arrivals[0]) / 1000);
    const bareRun = async (rows) => {
      receiver.arrivals.length = 0;
      await bareLoop(receiver.port, rows, randomBytes(32));
      return arrivalRate();
    };

    // Warm-up of both, not measured (as every scenario has one): the API's first deliveries after its
    // start would include compiling their code paths.
    const warmup = await apiRun(false, Math.max(5, Math.round(perEndpoint / 10)));
    await bareRun(warmup.rows);
    // Rounds of API then bare loop on the same bodies, as the other scenarios alternate: the ratio is the
    // median of the rounds' ratios (the shared machine's load moves both within a round, less across).
    const rounds = [];
    // The database's work per delivery, counted around the first round: every statement outside a
    // transaction is one (the bench's own backlog insert is one more; periodic jobs add a few).
    const committedBefore = await committedTransactions(db);
    let transactionsPerDelivery = null;
    for (let i = 0; i < roundCount; i++) {
      const api = await apiRun(false);
      if (i === 0) {
        transactionsPerDelivery = Math.round((((await committedTransactions(db)) - committedBefore - 1) / api.rows.length) * 100) / 100;
        log(`  webhooks        the API's transactions per delivery: ${transactionsPerDelivery}`);
      }
      const bare = await bareRun(api.rows);
      rounds.push({ api, bare, ratio: api.rate / bare });
      log(
        `  webhooks        round ${i + 1}: api ${api.rate.toFixed(0)} deliveries/s (cpu ${api.cpuMsPerDelivery} ms/delivery, first after ${api.firstAfterMs} ms), ` +
          `bare loop ${bare.toFixed(0)} deliveries/s, ratio ${(api.rate / bare).toFixed(2)} (${api.rows.length})`,
      );
    }
    const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
    const alone = { rate: median(rounds.map((r) => r.api.rate)), rows: rounds[0].api.rows };
    const bare = median(rounds.map((r) => r.bare));
    const ratio = median(rounds.map((r) => r.ratio));
    const cpuMsPerDelivery = median(rounds.map((r) => r.api.cpuMsPerDelivery));
    const beside = await apiRun(true);
    log(`  webhooks        api + one endpoint answering in 5 s: ${beside.rate.toFixed(0)} deliveries/s to the others`);
    // The endpoints go (their deliveries with them) once the slow endpoint's attempt has ended.
    await db.query(`UPDATE webhook_endpoints SET enabled = false WHERE id = ANY($1::uuid[])`, [[...fast, slow]]);
    await new Promise((r) => setTimeout(r, SLOW_ANSWER_MS + 1000));
    await db.query(`DELETE FROM webhook_endpoints WHERE id = ANY($1::uuid[])`, [[...fast, slow]]);
    const round = (n) => Math.round(n * 10) / 10;
    return {
      id: 'webhooks',
      title: `Deliveries/s from one API process to ${FAST_ENDPOINTS} loopback endpoints answering at once, against a bare sign-and-post loop`,
      deliveries: alone.rows.length,
      apiPerSecond: round(alone.rate),
      barePerSecond: round(bare),
      rounds: rounds.length,
      ratio: Math.round(ratio * 100) / 100,
      apiCpuMsPerDelivery: cpuMsPerDelivery,
      transactionsPerDelivery,
      withSlowEndpointPerSecond: round(beside.rate),
      slowEndpointRatio: Math.round((beside.rate / alone.rate) * 100) / 100,
    };
  } finally {
    await db.end();
    await receiver.close();
  }
}

module.exports = { webhooksScenario };
