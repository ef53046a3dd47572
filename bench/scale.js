'use strict';
// Every list route on the heavy account at a provider's size against a
// small dataset (same build, same run), EXPLAIN (ANALYZE, BUFFERS) of each list's SQL, and the
// activity retention purge and a terminated account's cleanup while the reads run.
//
//   node bench/run.js --scale=provider [--scale-factor=1] [--reuse-db] [--duration=S] [--rate=R]
//
// Two databases, `<db>_small` (factor 0.01 of bench/seed-provider.sql) and `<db>_provider`
// (--scale-factor, default 1), each migrated by the API and seeded by that one SQL file; before
// each run bench/seed-provider-purge.sql puts back what the purge phase consumes, so --reuse-db
// can run it again.
const fs = require('node:fs');
const path = require('node:path');
const autocannon = require('autocannon');
const jwt = require('jsonwebtoken');
const { withClient } = require('./pg-client');

const ROOT = path.join(__dirname, '..');
const SMALL_FACTOR = 0.01;
const RETENTION_DAYS = 90;

const benchId = (seed) => `overlay(overlay(md5(${seed}) placing '4' from 13) placing '8' from 17)::uuid`;

async function seededFactor(url) {
  try {
    return await withClient(url, async (c) => Number((await c.query('SELECT factor FROM bench_scale_meta')).rows[0].factor));
  } catch {
    return null;
  }
}

/** Migrated by the API (started once), then seeded by bench/seed-provider.sql; seconds taken. */
async function prepare(ctx, db, factor) {
  const url = ctx.databaseUrl(db);
  if (ctx.opts.reuseDb && (await seededFactor(url)) === factor) {
    ctx.log(`Reusing ${db} (factor ${factor})`);
    return { db, url, factor, reused: true };
  }
  ctx.log(`Creating ${db} (factor ${factor})`);
  await withClient(ctx.opts.adminUrl, async (c) => {
    await c.query(`DROP DATABASE IF EXISTS "${db}" WITH (FORCE)`);
    await c.query(`CREATE DATABASE "${db}"`);
  });
  const port = await ctx.freePort();
  const migrate = ctx.startProcess(`api (migrations of ${db})`, ctx.apiMain, ctx.apiEnv(port, url));
  await ctx.waitReady(migrate, port, '/health/ready');
  await ctx.stopProcess(migrate);
  const t0 = Date.now();
  await withClient(url, async (c) => {
    await c.query(`SET bench.factor = '${factor}'`);
    await c.query(`SET maintenance_work_mem = '512MB'`);
    await c.query(`SET synchronous_commit = off`);
    await c.query(fs.readFileSync(path.join(__dirname, 'seed-provider.sql'), 'utf8'));
  });
  const seedSeconds = (Date.now() - t0) / 1000;
  const t1 = Date.now();
  await withClient(url, async (c) => {
    await c.query('VACUUM ANALYZE');
    await c.query(`CREATE TABLE bench_scale_meta (factor float8 NOT NULL, seed_seconds float8, vacuum_seconds float8)`);
    await c.query(`INSERT INTO bench_scale_meta VALUES ($1, $2, $3)`, [factor, seedSeconds, (Date.now() - t1) / 1000]);
  });
  const vacuumSeconds = (Date.now() - t1) / 1000;
  ctx.log(`  seeded in ${seedSeconds.toFixed(1)} s, VACUUM ANALYZE ${vacuumSeconds.toFixed(1)} s`);
  return { db, url, factor, reused: false, seedSeconds, vacuumSeconds };
}

/** The heavy account's key, an access token, its endpoint, one of its services, its row counts. */
async function heavyAccount(ctx, url) {
  return withClient(url, async (c) => {
    const account = (await c.query(`SELECT ${benchId(`'account-1'`)} AS id`)).rows[0].id;
    await c.query(`DELETE FROM api_keys WHERE name = 'bench scale key'`);
    const key = ctx.newApiKey();
    await c.query(
      `INSERT INTO api_keys (account_id, name, prefix, key_hash, scopes, created_at) VALUES ($1, 'bench scale key', left($2, 12), $3, ARRAY['read', 'write'], now() - interval '1 day')`,
      [account, key, ctx.sha256(key)],
    );
    const session = (
      await c.query(`INSERT INTO sessions (account_id, expires_at) VALUES ($1, now() + interval '1 day') RETURNING id`, [account])
    ).rows[0].id;
    const one = async (sql) => (await c.query(sql, [account])).rows[0];
    const counts = await one(
      `SELECT (SELECT count(*) FROM services WHERE account_id = $1)::int AS services,
              (SELECT count(*) FROM activity_events WHERE account_id = $1)::int AS events,
              (SELECT count(*) FROM notifications WHERE account_id = $1)::int AS notifications,
              (SELECT count(*) FROM tickets WHERE account_id = $1)::int AS tickets,
              (SELECT count(*) FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id WHERE e.account_id = $1)::int AS deliveries,
              (SELECT count(*) FROM ssh_keys WHERE account_id = $1)::int AS ssh_keys,
              (SELECT count(*) FROM api_keys WHERE account_id = $1 AND revoked_at IS NULL)::int AS api_keys,
              (SELECT count(*) FROM sessions WHERE account_id = $1 AND revoked_at IS NULL AND expires_at > now())::int AS sessions`,
    );
    const totals = await one(
      `SELECT (SELECT count(*) FROM accounts)::int AS accounts, (SELECT count(*) FROM services)::int AS services,
              (SELECT count(*) FROM activity_events)::int AS events, (SELECT count(*) FROM notifications)::int AS notifications,
              (SELECT count(*) FROM webhook_deliveries)::int AS deliveries, (SELECT count(*) FROM webhook_delivery_attempts)::int AS attempts,
              (SELECT count(*) FROM tickets)::int AS tickets, $1::uuid IS NOT NULL AS ok`,
    );
    const endpoint = (await one(`SELECT id FROM webhook_endpoints WHERE account_id = $1`)).id;
    const service = (await c.query(`SELECT ${benchId(`'service-1'`)} AS id`)).rows[0].id;
    const token = jwt.sign({ sid: session, typ: 'access' }, ctx.secrets.JWT_SECRET, {
      algorithm: 'HS256',
      subject: account,
      issuer: 'hosting-account-api',
      expiresIn: '6h',
    });
    delete totals.ok;
    return { account, key, token, session, endpoint, service, counts, totals };
  });
}

/** Page 1,000 where the heavy account has that many pages: at the largest page size that gives them. */
function deepPageSize(rows) {
  if (rows >= 100_000) return 100;
  if (rows >= 10_000) return 10;
  return null;
}

/** The list routes, each with how many rows the heavy account has behind it. */
function routes(h) {
  const since = new Date(Date.now() - 86_400_000).toISOString();
  const list = [
    { id: 'services', path: '/api/services', rows: h.counts.services },
    { id: 'events', path: '/api/events', rows: h.counts.events },
    { id: 'events-action', path: '/api/events?action=instance.stop', rows: null },
    { id: 'events-entityType', path: '/api/events?entityType=service', rows: null },
    { id: 'events-entityId', path: `/api/events?entityType=service&entityId=${h.service}`, rows: null },
    { id: 'events-since', path: `/api/events?since=${encodeURIComponent(since)}`, rows: null },
    { id: 'notifications', path: '/api/notifications', rows: h.counts.notifications },
    { id: 'notifications-unread', path: '/api/notifications?unread=true', rows: null },
    { id: 'tickets', path: '/api/support/tickets', rows: h.counts.tickets },
    { id: 'tickets-status', path: '/api/support/tickets?status=open', rows: null },
    { id: 'deliveries', path: `/api/webhooks/${h.endpoint}/deliveries`, rows: h.counts.deliveries },
    { id: 'ssh-keys', path: '/api/ssh-keys', rows: h.counts.ssh_keys },
    { id: 'api-keys', path: '/api/auth/api-keys', rows: h.counts.api_keys },
    { id: 'sessions', path: '/api/auth/sessions', rows: h.counts.sessions, token: true },
  ];
  const out = [];
  for (const r of list) {
    const sep = r.path.includes('?') ? '&' : '?';
    out.push({ ...r, page: 1, pageSize: 10, url: `${r.path}${sep}page=1&pageSize=10` });
    const size = r.rows === null ? null : deepPageSize(r.rows);
    if (size) {
      out.push({ ...r, id: `${r.id}-p1000`, base: r.id, page: 1000, pageSize: size, url: `${r.path}${sep}page=1000&pageSize=${size}` });
      if (size !== 10)
        out.push({ ...r, id: `${r.id}-p1-size${size}`, page: 1, pageSize: size, url: `${r.path}${sep}page=1&pageSize=${size}` });
    }
  }
  return out;
}

async function measure(port, route, headers, { duration, rate, connections }) {
  const result = await autocannon({
    url: `http://127.0.0.1:${port}${route.url}`,
    headers,
    connections,
    duration,
    overallRate: rate,
    timeout: 10,
  });
  return {
    requests: result.requests.total,
    rps: Math.round(result.requests.average * 10) / 10,
    p50: result.latency.p50,
    p99: result.latency.p99,
    max: result.latency.max,
    bad: result.non2xx + result.errors + result.timeouts,
  };
}

// ---- the lists' SQL, for EXPLAIN ----------------------------------------------------------------
function builtModule(apiMain, rel) {
  return require(path.resolve(path.dirname(apiMain), '../../..', rel));
}

/** The built TicketsRepository's page as a function of a db, or null for a build whose page is a TypeORM find (before ticket_counts). */
function ticketsPageOf(apiMain) {
  const { TicketsRepository } = builtModule(apiMain, 'libs/support/src/tickets/tickets.repository.js');
  if (/getRepository/.test(TicketsRepository.prototype.page.toString())) return null;
  return (db, account, status, page) => new TicketsRepository(db).page(account, status, page);
}

/** Each list's statements as the built repositories send them (captured), or the TypeORM find's equivalent. */
async function listStatements(apiMain, h, route) {
  const captured = [];
  const db = {
    query: async (text, params) => {
      captured.push({ text, params });
      return /AS total/.test(text) ? [{ total: 0 }] : [];
    },
  };
  const page = { page: route.page, pageSize: route.pageSize };
  const offset = String((route.page - 1) * route.pageSize);
  const q = new URLSearchParams(route.url.split('?')[1]);
  const base = route.base ?? route.id;
  if (base === 'services') {
    const { ServicesRepository } = builtModule(apiMain, 'libs/services/src/services.repository.js');
    const { text, values } = ServicesRepository.pageStatement(h.account, {}, page);
    return [{ text, params: values }];
  }
  if (base.startsWith('events')) {
    const { ActivityRepository } = builtModule(apiMain, 'libs/events/src/activity.repository.js');
    await new ActivityRepository(db).page(h.account, page, {
      action: q.get('action') ?? undefined,
      entityType: q.get('entityType') ?? undefined,
      entityId: q.get('entityId') ?? undefined,
      since: q.get('since') ? new Date(q.get('since')) : undefined,
    });
  } else if (base.startsWith('notifications')) {
    const { NotificationsRepository } = builtModule(apiMain, 'libs/notifications/src/notifications.repository.js');
    await new NotificationsRepository(db).page(h.account, page, q.get('unread') === null ? undefined : q.get('unread') === 'true');
  } else if (base === 'deliveries') {
    const { DeliveriesRepository } = builtModule(apiMain, 'libs/webhooks/src/delivery/deliveries.repository.js');
    await new DeliveriesRepository(db).page(h.endpoint, page);
  } else if (base.startsWith('tickets') && ticketsPageOf(apiMain)) {
    await ticketsPageOf(apiMain)(db, h.account, q.get('status') ?? undefined, page);
  } else if (base === 'sessions') {
    const { SessionsRepository } = builtModule(apiMain, 'libs/auth/src/sessions/sessions.repository.js');
    await new SessionsRepository(db).listLive(h.account, page);
  } else {
    // TypeORM find({ where, order: createdAt DESC, id DESC, skip, take }) and count: the same statements.
    const table = { tickets: 'tickets', 'tickets-status': 'tickets', 'ssh-keys': 'ssh_keys', 'api-keys': 'api_keys' }[base];
    const where =
      { 'api-keys': 'account_id = $1 AND revoked_at IS NULL', 'tickets-status': 'account_id = $1 AND status = $2' }[base] ??
      'account_id = $1';
    const params = base === 'tickets-status' ? [h.account, q.get('status')] : [h.account];
    const n = params.length;
    return [
      {
        text: `SELECT * FROM ${table} WHERE ${where} ORDER BY created_at DESC, id DESC LIMIT $${n + 1} OFFSET $${n + 2}`,
        params: [...params, route.pageSize, offset],
      },
      { text: `SELECT count(*) FROM ${table} WHERE ${where}`, params },
    ];
  }
  return captured;
}

/** Nodes that read more than the page: sequential scans, sorts and bitmap scans of many rows. */
function scanningNodes(plan, pageRows, found = []) {
  const rows = plan['Actual Rows'] * (plan['Actual Loops'] ?? 1);
  const type = plan['Node Type'];
  const limit = Math.max(1000, 10 * pageRows);
  if ((type === 'Seq Scan' || type === 'Sort' || type === 'Bitmap Heap Scan' || /Scan/.test(type)) && rows > limit) {
    found.push(
      `${type}${plan['Relation Name'] ? ` on ${plan['Relation Name']}` : ''}${plan['Index Name'] ? ` using ${plan['Index Name']}` : ''} (${rows} rows)`,
    );
  }
  for (const child of plan.Plans ?? []) scanningNodes(child, pageRows, found);
  return found;
}

async function explainAll(ctx, url, h, list) {
  const out = {};
  await withClient(url, async (c) => {
    for (const route of list) {
      const statements = await listStatements(ctx.apiMain, h, route);
      out[route.id] = [];
      for (const s of statements) {
        const [
          {
            'QUERY PLAN': [plan],
          },
        ] = (await c.query(`EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${s.text}`, s.params)).rows;
        out[route.id].push({
          sql: s.text.replace(/\s+/g, ' ').trim(),
          executionMs: plan['Execution Time'],
          sharedBuffers: (plan.Plan['Shared Hit Blocks'] ?? 0) + (plan.Plan['Shared Read Blocks'] ?? 0),
          reads: scanningNodes(plan.Plan, route.pageSize),
          plan,
        });
      }
    }
  });
  return out;
}

// ---- purge and cleanup while reading ----------------------------------------------------------
async function purgeWhileReading(ctx, url, port, readRoutes, headersFor, load) {
  const { DataSource } = require('typeorm');
  const { ActivityRepository } = builtModule(ctx.apiMain, 'libs/events/src/activity.repository.js');
  const ds = new DataSource({ type: 'postgres', url });
  await ds.initialize();
  try {
    const before = new Date(Date.now() - RETENTION_DAYS * 86_400_000);
    const expired = await withClient(
      url,
      async (c) => (await c.query('SELECT count(*)::int AS n FROM activity_events WHERE created_at < $1', [before])).rows[0].n,
    );
    const terminated = await withClient(url, async (c) => {
      const id = (await c.query(`SELECT ${benchId(`'account-2'`)} AS id`)).rows[0].id;
      const n = (
        await c.query(
          `SELECT (SELECT count(*) FROM services WHERE account_id = $1)::int AS services, (SELECT count(*) FROM activity_events WHERE account_id = $1)::int AS events,
                  (SELECT count(*) FROM notifications WHERE account_id = $1)::int AS notifications, (SELECT count(*) FROM tickets WHERE account_id = $1)::int AS tickets`,
          [id],
        )
      ).rows[0];
      return { id, rows: n };
    });
    ctx.log(
      `  purge: ${expired} entries older than ${RETENTION_DAYS} days; cleanup of a terminated account holding ${JSON.stringify(terminated.rows)}`,
    );
    const repository = new ActivityRepository(ds);
    let purged = 0;
    let purgeDone = false;
    const t0 = Date.now();
    const purge = (async () => {
      for (;;) {
        const n = await repository.purgeBatch(before);
        purged += n;
        // The job stops at a short batch (the next run goes on); rows the cleanup deleted first can
        // make a batch short here, so the bench goes on until nothing is left.
        if (n === 0) break;
      }
      purgeDone = true;
      return (Date.now() - t0) / 1000;
    })();
    // The terminated account: deleting it cascades to everything it holds.
    const cleanup = (async () => {
      const t = Date.now();
      await withClient(url, (c) => c.query('DELETE FROM accounts WHERE id = $1', [terminated.id]));
      return (Date.now() - t) / 1000;
    })();
    const during = {};
    for (const route of readRoutes) {
      if (purgeDone) break;
      during[route.id] = await measure(port, route, headersFor(route), load);
      ctx.log(
        `    during purge ${route.id.padEnd(24)} p50 ${during[route.id].p50} ms  p99 ${during[route.id].p99} ms (purged so far ${purged})`,
      );
    }
    const [purgeSeconds, cleanupSeconds] = await Promise.all([purge, cleanup]);
    return {
      expired,
      purged,
      purgeSeconds,
      rowsPerSecond: Math.round(purged / purgeSeconds),
      terminatedAccount: { rows: terminated.rows, cleanupSeconds },
      readsDuringPurge: during,
    };
  } finally {
    await ds.destroy();
  }
}

// ---- main ---------------------------------------------------------------------------------------
async function scaleScenario(ctx) {
  const { opts, log } = ctx;
  const factor = Number(opts.scaleFactor ?? 1);
  const load = { duration: opts.duration, rate: opts.rate, connections: opts.connections };
  const small = await prepare(ctx, `${opts.db}_small`, SMALL_FACTOR);
  const provider = await prepare(ctx, `${opts.db}_provider`, factor);
  // What an earlier run's purge phase consumed (the expired entries, the terminated account).
  const t0 = Date.now();
  await withClient(provider.url, async (c) => {
    await c.query(`SET bench.factor = '${factor}'`);
    await c.query(fs.readFileSync(path.join(__dirname, 'seed-provider-purge.sql'), 'utf8'));
  });
  provider.purgeSeedSeconds = (Date.now() - t0) / 1000;
  log(`  ${provider.db}: expired entries and the terminated account in place (${provider.purgeSeedSeconds.toFixed(1)} s)`);
  const sets = [small, provider];
  for (const set of sets) {
    set.port = await ctx.freePort();
    set.api = ctx.startProcess(`api (${set.db})`, ctx.apiMain, ctx.apiEnv(set.port, set.url));
    ctx.started.push(set.api);
  }
  await Promise.all(sets.map((s) => ctx.waitReady(s.api, s.port, '/health/ready')));
  for (const set of sets) {
    await withClient(set.url, (c) => c.query('VACUUM ANALYZE'));
    set.heavy = await heavyAccount(ctx, set.url);
    log(`  ${set.db}: all ${JSON.stringify(set.heavy.totals)}; heavy account ${JSON.stringify(set.heavy.counts)}`);
  }
  const headers = (set) => (route) => ({ authorization: `Bearer ${route.token ? set.heavy.token : set.heavy.key}` });
  const list = routes(provider.heavy);
  const smallList = routes(small.heavy);
  const rows = [];
  for (const route of list) {
    const smallRoute =
      smallList.find((r) => r.id === route.id) ?? (route.page === 1 ? smallList.find((r) => r.id === (route.base ?? route.id)) : null);
    const row = { id: route.id, url: route.url, page: route.page, pageSize: route.pageSize };
    // warm-up of both, then small, provider alternately
    if (smallRoute) await measure(small.port, smallRoute, headers(small)(smallRoute), { ...load, duration: 1 });
    await measure(provider.port, route, headers(provider)(route), { ...load, duration: 1 });
    if (smallRoute && route.page === 1) row.small = await measure(small.port, smallRoute, headers(small)(smallRoute), load);
    row.provider = await measure(provider.port, route, headers(provider)(route), load);
    if (row.small) row.p99Ratio = Math.round((row.provider.p99 / Math.max(1, row.small.p99)) * 100) / 100;
    rows.push(row);
    log(
      `  ${route.id.padEnd(24)} small p50 ${row.small?.p50 ?? '-'} p99 ${row.small?.p99 ?? '-'} | provider p50 ${row.provider.p50} p99 ${row.provider.p99} ms` +
        `${row.p99Ratio ? `  p99 ratio ${row.p99Ratio}` : ''}${row.provider.bad || row.small?.bad ? `  BAD ${row.provider.bad + (row.small?.bad ?? 0)}` : ''}`,
    );
  }
  for (const row of rows) {
    if (row.page !== 1000) continue;
    const first = rows.find((r) => r.id === `${row.id.replace('-p1000', '')}${row.pageSize === 10 ? '' : `-p1-size${row.pageSize}`}`);
    if (first) row.vsPage1 = Math.round((row.provider.p99 / Math.max(1, first.provider.p99)) * 100) / 100;
  }

  log('  EXPLAIN (ANALYZE, BUFFERS) of every list, provider scale');
  const explain = await explainAll(ctx, provider.url, provider.heavy, list);
  const explainSmall = await explainAll(
    ctx,
    small.url,
    small.heavy,
    smallList.filter((r) => r.page === 1),
  );

  const readRoutes = list.filter((r) => r.page === 1 && ['services', 'events', 'notifications', 'deliveries', 'tickets'].includes(r.id));
  log('  retention purge and a terminated account cleanup, while reading');
  const purge = await purgeWhileReading(ctx, provider.url, provider.port, readRoutes, headers(provider), load);
  for (const [id, during] of Object.entries(purge.readsDuringPurge)) {
    const quiet = rows.find((r) => r.id === id).provider;
    during.p99VsQuiet = Math.round((during.p99 / Math.max(1, quiet.p99)) * 100) / 100;
  }

  // report
  const pad = (s, n) => String(s ?? '-').padStart(n);
  log('');
  log(
    `${'list (heavy account)'.padEnd(26)}${pad('size', 6)}${pad('small p50', 11)}${pad('p99', 6)}${pad('prov p50', 10)}${pad('p99', 6)}${pad('p99 x', 7)}${pad('vs p1', 7)}${pad('SQL ms', 8)}  reads more than the page`,
  );
  for (const r of rows) {
    const ex = explain[r.id] ?? [];
    const ms = ex.reduce((n, s) => n + s.executionMs, 0).toFixed(1);
    const reads = ex.flatMap((s) => s.reads).join('; ');
    log(
      `${r.id.padEnd(26)}${pad(r.pageSize, 6)}${pad(r.small?.p50, 11)}${pad(r.small?.p99, 6)}${pad(r.provider.p50, 10)}${pad(r.provider.p99, 6)}${pad(r.p99Ratio, 7)}${pad(r.vsPage1, 7)}${pad(ms, 8)}  ${reads || 'none'}`,
    );
  }
  log(
    `(ms; ${load.rate} req/s on ${load.connections} connections for ${load.duration} s each; p99 x: provider / small; vs p1: page 1,000 / page 1 at the same size; SQL ms: EXPLAIN ANALYZE execution time of the list's statements)`,
  );
  log(
    `Purge: ${purge.purged} of ${purge.expired} expired entries in ${purge.purgeSeconds.toFixed(1)} s (${purge.rowsPerSecond} rows/s); terminated account ${JSON.stringify(purge.terminatedAccount.rows)} deleted in ${purge.terminatedAccount.cleanupSeconds.toFixed(1)} s`,
  );
  for (const [id, d] of Object.entries(purge.readsDuringPurge)) log(`  during the purge ${id}: p99 ${d.p99} ms, ${d.p99VsQuiet}x of quiet`);

  const checks = [];
  for (const r of rows) {
    if (r.p99Ratio !== undefined)
      checks.push({ target: `${r.id}: p99 at provider scale <= 1.5x small`, value: r.p99Ratio, pass: r.p99Ratio <= 1.5 });
    if (r.vsPage1 !== undefined)
      checks.push({ target: `${r.id}: p99 of page 1,000 <= 1.5x page 1`, value: r.vsPage1, pass: r.vsPage1 <= 1.5 });
  }
  for (const [id, d] of Object.entries(purge.readsDuringPurge)) {
    checks.push({ target: `${id}: p99 during the purge and cleanup <= 1.5x quiet`, value: d.p99VsQuiet, pass: d.p99VsQuiet <= 1.5 });
  }
  log('');
  log('Targets:');
  for (const c of checks) log(`  ${c.pass ? 'PASS' : 'FAIL'}  ${c.target}: ${c.value}`);
  const strip = (set) => ({
    db: set.db,
    factor: set.factor,
    reused: set.reused,
    seedSeconds: set.seedSeconds,
    purgeSeedSeconds: set.purgeSeedSeconds,
    vacuumSeconds: set.vacuumSeconds,
    all: set.heavy.totals,
    heavyAccount: set.heavy.counts,
  });
  return { datasets: { small: strip(small), provider: strip(provider) }, load, lists: rows, explain, explainSmall, purge, targets: checks };
}

module.exports = { scaleScenario };
