import { join, relative } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { SoakAudit } from './audit';
import { CustomerLoad } from './customers';
import { DatabaseProbe, describeStall } from './db-probe';
import { chosenKinds, FaultKind, FaultSchedule } from './faults';
import { HttpLog } from './http-log';
import { Random } from './random';
import { summary, writeReport } from './report';
import { SoakOperator } from './operator';
import { VitalsTracker } from './vitals';
import { SoakWorld } from './world';

const ROOT = join(__dirname, '../..');

interface Options {
  minutes: number;
  smoke: boolean;
  seed: number;
  customers: number;
  vpses: number;
  debian: number;
  faultGapSeconds: number;
  faults: Partial<Record<FaultKind, number>>;
  out?: string;
}

function options(): Options {
  const { values } = parseArgs({
    options: {
      minutes: { type: 'string' },
      smoke: { type: 'boolean', default: false },
      seed: { type: 'string' },
      customers: { type: 'string' },
      vpses: { type: 'string' },
      debian: { type: 'string' },
      'fault-gap-seconds': { type: 'string' },
      faults: { type: 'string' },
      out: { type: 'string' },
    },
  });
  const smoke = values.smoke ?? false;
  return {
    smoke,
    minutes: Number(values.minutes ?? (smoke ? 2 : 60)),
    seed: Number(values.seed ?? Date.now() % 1_000_000),
    customers: Number(values.customers ?? (smoke ? 30 : 200)),
    vpses: Number(values.vpses ?? (smoke ? 3 : 6)),
    // Debian guests (backups of a real system under the agent's freeze) only when asked: beside 200
    // customers, one under TCG starved this two-core machine's PostgreSQL (docs/soak.md).
    debian: Number(values.debian ?? 0),
    // 60 minutes: faults for the first 48, one every 85 s on average, about 34.
    faultGapSeconds: Number(values['fault-gap-seconds'] ?? (smoke ? 20 : 85)),
    faults: chosenKinds(values.faults),
    out: values.out,
  };
}

const say = (line: string) => process.stdout.write(`[soak ${new Date().toISOString().slice(11, 19)}] ${line}\n`);

/** Waits until nothing is left to do: no action running, no delivery or mail job pending. */
async function settle(world: SoakWorld, timeoutMs: number): Promise<string[]> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const [pending] = world.postgres.rows<{ actions: number; deliveries: number; mail: number; images: number; backups: number }>(
      `SELECT (SELECT count(*) FROM instance_actions WHERE status = 'running')::int AS actions,
              (SELECT count(*) FROM webhook_deliveries WHERE status = 'pending')::int AS deliveries,
              (SELECT count(*) FROM pgboss.job WHERE name = 'mail.send' AND state IN ('created', 'retry', 'active'))::int AS mail,
              (SELECT count(*) FROM images WHERE status IN ('creating', 'deleting'))::int AS images,
              (SELECT count(*) FROM vps_backups WHERE status IN ('running', 'deleting'))::int
                + (SELECT count(*) FROM pgboss.job WHERE name = 'vps-backup' AND state IN ('created', 'retry', 'active'))::int AS backups`,
    );
    const left = Object.entries(pending)
      .filter(([, n]) => n > 0)
      .map(([what, n]) => `${n} ${what}`);
    if (!left.length) return [];
    if (Date.now() > until) return [...left, ...pendingDetails(world)];
    await sleep(2_000);
  }
}

/** What is still pending, one line each, for the report (the soak's database is dropped at its end). */
function pendingDetails(world: SoakWorld): string[] {
  return world.postgres
    .rows<{ line: string }>(
      `SELECT format('action %s (%s) of %s running since %s', id, type, service_id, started_at) AS line FROM instance_actions WHERE status = 'running'
       UNION ALL SELECT format('image %s %s, made %s', id, status, created_at) FROM images WHERE status IN ('creating', 'deleting')
       UNION ALL SELECT format('backup %s of %s %s, heartbeat %s', id, service_id, status, heartbeat_at) FROM vps_backups WHERE status IN ('running', 'deleting')
       UNION ALL SELECT format('job %s %s %s (try %s of %s, started %s, data %s)', name, id, state, retry_count, retry_limit, started_on, data)
         FROM pgboss.job WHERE name IN ('vps-backup', 'mail.send') AND state IN ('created', 'retry', 'active')
       LIMIT 20`,
    )
    .map((r) => r.line);
}

function soakConnections(world: SoakWorld): number {
  return Number(world.postgres.psql("SELECT count(*) FROM pg_stat_activity WHERE datname = 'soak'").trim());
}

async function main(): Promise<void> {
  const opts = options();
  const world = new SoakWorld();
  const stopWorld = async () => {
    await world.stop();
  };
  process.on('SIGINT', () => void stopWorld().then(() => process.exit(130)));
  process.on('SIGTERM', () => void stopWorld().then(() => process.exit(143)));
  say(
    `seed ${opts.seed}, ${opts.minutes} min, ${opts.customers} customers, ${opts.vpses} VPSes and ${opts.debian} Debian${opts.smoke ? ' (smoke)' : ''}`,
  );
  let exitCode = 0;
  try {
    await world.start(say, opts.debian > 0);
    const random = new Random(opts.seed);
    const began = Date.now();
    const http = new HttpLog(() => world.baseUrl, began);
    const load = new CustomerLoad(world, http, random.fork(1), began);
    say(`signing up ${opts.customers} customers (mail, confirmation, API key), endpoints, VPSes`);
    await load.signUp(opts.customers, opts.vpses, Math.ceil(opts.customers / 3), opts.debian);
    load.watchStreams(Math.min(opts.vpses + opts.debian + 4, 12));
    const loadStart = Date.now();
    const until = loadStart + opts.minutes * 60_000;
    // Faults stop at four fifths of the run (two thirds in smoke): the rest shows the replicas warmed up again without them.
    const faultsUntil = loadStart + opts.minutes * (opts.smoke ? 40_000 : 48_000);
    const meanGapMs = opts.faultGapSeconds * 1000;
    const faults = new FaultSchedule(world, random.fork(2), began, opts.smoke, say, opts.faults);
    const vitals = new VitalsTracker(world.apis, opts.smoke ? 30_000 : 300_000, began);
    vitals.start();
    const probe = new DatabaseProbe(world.postgres.url(), began);
    probe.start();
    let warmConnections = 0;
    const connectionsSampler = setInterval(() => {
      if (Date.now() > faultsUntil) warmConnections = Math.max(warmConnections, soakConnections(world));
    }, 5_000);
    say(
      `load for ${opts.minutes} min, faults until ${Math.round((faultsUntil - loadStart) / 1000)} s, about one every ${meanGapMs / 1000} s`,
    );
    const operator = new SoakOperator(world, random.fork(3), began);
    await Promise.all([load.play(until), faults.run(faultsUntil, meanGapMs), operator.run(until, opts.smoke ? 15_000 : 45_000)]);
    vitals.stop();
    await probe.stop();
    clearInterval(connectionsSampler);
    faults.observed.push(
      ...probe.stalls.map((s) => ({ kind: 'database-stall' as const, at: s.at, endedAt: s.at + s.ms, detail: describeStall(s) })),
    );
    say(`load over (${http.exchanges.length} requests, ${faults.log.length} faults); waiting for the work to settle`);
    const unsettled = await settle(world, opts.smoke ? 180_000 : 300_000);
    await sleep(5_000);
    await Promise.all(load.watchers.map((w) => w.stop()));
    const leaks = await vitals.figures();
    const connections = { warm: warmConnections, end: soakConnections(world) };
    const audit = new SoakAudit(world, load, http, faults, operator, opts.smoke);
    const checks = await audit.run(leaks, connections);
    if (unsettled.length) checks.push({ name: 'the work settled', checked: 1, findings: [`still pending: ${unsettled.join(', ')}`] });

    const out = opts.out ?? join(ROOT, 'bench/results', `soak-${opts.smoke ? 'smoke' : `${opts.minutes}m`}-${opts.seed}.json`);
    writeReport(out, { opts, world, load, http, faults, operator, leaks, connections, checks, probe });
    for (const line of summary({ opts, world, load, http, faults, operator, leaks, connections, checks, probe })) say(line);
    say(`report: ${relative(ROOT, out)}`);
    if (checks.some((c) => c.findings.length && !c.informational)) exitCode = 1;
  } catch (err) {
    say(`the soak could not run: ${(err as Error).stack}`);
    for (const api of world.apis) say(`${api.name} output:\n${api.output().slice(-3000)}`);
    exitCode = 2;
  } finally {
    await stopWorld();
  }
  process.exit(exitCode);
}

void main();
