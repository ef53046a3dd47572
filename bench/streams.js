'use strict';
// The streams scenario: N open notification streams (GET /api/notifications/stream, SSE) on one API
// process, STREAMS_PER_ACCOUNT per account as browser tabs would be: the process's memory per
// stream, then one notification for every account committed in one transaction and announced as
// the API announces one (pg_notify on account_notifications): time from the commit to its arrival
// on each stream, p50/p99/max over all of them.
const http = require('node:http');
const { Client } = require('pg');
const { withClient } = require('./pg-client');

const STREAMS_PER_ACCOUNT = 10;
/** Streams opened at once (the rest wait): an opening authenticates and reads the unread count. */
const OPENING_CONCURRENCY = 50;
const ARRIVAL_TIMEOUT_MS = 60_000;
const OPEN_TIMEOUT_MS = 10_000;
const STALL_CHECK_MS = 15_000;

function openStream(port, apiKey, onEvent) {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port, path: '/api/notifications/stream', headers: { authorization: `Bearer ${apiKey}` }, agent: false },
      (res) => {
        if (res.statusCode !== 200) {
          const chunks = [];
          res.on('data', (c) => chunks.push(c));
          res.on('end', () => reject(new Error(`stream: ${res.statusCode} ${Buffer.concat(chunks).toString().slice(0, 300)}`)));
          return;
        }
        res.setEncoding('utf8');
        let first = true;
        res.on('data', (text) => {
          if (first && text.includes('event: unread-count')) {
            first = false;
            req.setTimeout(0);
            resolve({ close: () => req.destroy() });
          }
          if (text.includes('event: notification')) onEvent();
        });
        res.on('error', () => undefined);
      },
    );
    req.on('error', reject);
    // An opening that has not given its first event by then counts as refused.
    req.setTimeout(OPEN_TIMEOUT_MS, () => req.destroy(new Error(`no first event within ${OPEN_TIMEOUT_MS / 1000} s`)));
    req.end();
  });
}

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];

async function streamsScenario({ port, pid, procStatus, keys, accountIds, dbUrl, streams: wanted, log }) {
  const accounts = Math.min(accountIds.length, Math.ceil(wanted / STREAMS_PER_ACCOUNT));
  const total = accounts * STREAMS_PER_ACCOUNT;
  const before = procStatus(pid).rssKb;
  const arrivals = new Array(total).fill(null);
  let armed = false;
  const open = [];
  const started = Date.now();
  let next = 0;
  // Where it breaks: the first refused opening stops the opening, and the rest is measured on what is open.
  let refused = null;
  const workers = Promise.all(
    Array.from({ length: OPENING_CONCURRENCY }, async () => {
      while (next < total && !refused) {
        const i = next++;
        const account = i % accounts;
        const opening = openStream(port, keys[account], () => armed && arrivals[i] === null && (arrivals[i] = performance.now()));
        try {
          open.push({ index: i, ...(await opening) });
          if (open.length % 2000 === 0)
            log(
              `  streams         ${open.length} open after ${((Date.now() - started) / 1000).toFixed(1)} s, API RSS ${Math.round(procStatus(pid).rssKb / 1024)} MB`,
            );
        } catch (err) {
          arrivals[i] = undefined;
          refused ??= { afterOpen: open.length, error: err.message };
        }
      }
    }),
  );
  // Openings that stop coming back (seen at about 8,000 streams here) end the opening too.
  let stallTimer;
  const stalled = new Promise((resolve) => {
    let seen = -1;
    const check = () => {
      if (open.length === seen && open.length < total) {
        refused ??= { afterOpen: open.length, error: `no stream opened in ${STALL_CHECK_MS / 1000} s` };
        return resolve();
      }
      seen = open.length;
      stallTimer = setTimeout(check, STALL_CHECK_MS);
    };
    stallTimer = setTimeout(check, STALL_CHECK_MS);
  });
  await Promise.race([workers, stalled]);
  clearTimeout(stallTimer);
  if (refused) log(`  streams         opening refused after ${refused.afterOpen} open: ${refused.error}`);
  const opened = new Set(open.map((s) => s.index));
  for (let i = 0; i < total; i++) if (!opened.has(i)) arrivals[i] = undefined;
  const openSeconds = (Date.now() - started) / 1000;
  // Let the opening's garbage be collected and RSS settle before reading it.
  await new Promise((r) => setTimeout(r, 2000));
  const after = procStatus(pid).rssKb;
  const perStreamKb = Math.round(((after - before) / total) * 10) / 10;
  log(
    `  streams         ${open.length} open (${accounts} accounts) in ${openSeconds.toFixed(1)} s; RSS +${Math.round((after - before) / 1024)} MB, ${perStreamKb} KB per stream`,
  );

  const db = new Client({ connectionString: dbUrl });
  await db.connect();
  let committedAt;
  try {
    armed = true;
    await db.query('BEGIN');
    // libs/notifications/src/notifications.repository.ts: the row and its pg_notify in one statement, as the API makes one
    await db.query(
      `WITH made AS (
         INSERT INTO notifications (account_id, type, severity, title, body)
         SELECT a, 'ticket_replied', 'info', 'Bench stream notification', 'There is a new answer on your ticket.' FROM unnest($1::uuid[]) a
         RETURNING id, account_id)
       SELECT pg_notify('account_notifications', json_build_object('accountId', account_id, 'notificationId', id)::text) FROM made`,
      [accountIds.slice(0, accounts)],
    );
    await db.query('COMMIT');
    committedAt = performance.now();
  } finally {
    await db.end();
  }
  const until = Date.now() + ARRIVAL_TIMEOUT_MS;
  while (arrivals.some((a) => a === null) && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
  for (const s of open) s.close();
  await withClient(dbUrl, (c) => c.query(`DELETE FROM notifications WHERE title = 'Bench stream notification'`));
  const missing = arrivals.filter((a) => a === null).length;
  const latencies = arrivals
    .filter((a) => typeof a === 'number')
    .map((a) => a - committedAt)
    .sort((a, b) => a - b);
  const ms = (n) => Math.round(n);
  const row = {
    id: 'streams',
    title: `Open notification streams on one API process (${STREAMS_PER_ACCOUNT} per account); one notification per account committed at once`,
    streams: open.length,
    wanted: total,
    refused,
    accounts,
    openSeconds: Math.round(openSeconds * 10) / 10,
    rssBeforeMb: Math.round(before / 1024),
    rssAfterMb: Math.round(after / 1024),
    kbPerStream: perStreamKb,
    arrivalP50Ms: ms(percentile(latencies, 50)),
    arrivalP99Ms: ms(percentile(latencies, 99)),
    arrivalMaxMs: ms(latencies[latencies.length - 1]),
    missing,
  };
  log(
    `  streams         commit to arrival: p50 ${row.arrivalP50Ms} ms, p99 ${row.arrivalP99Ms} ms, max ${row.arrivalMaxMs} ms; missing ${missing}`,
  );
  return row;
}

module.exports = { streamsScenario };
