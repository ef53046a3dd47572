import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { dirname } from 'node:path';
import type { Check } from './audit';
import type { CustomerLoad } from './customers';
import type { DatabaseProbe } from './db-probe';
import type { FaultSchedule } from './faults';
import type { HttpLog } from './http-log';
import type { SoakOperator } from './operator';
import type { LeakFigures, Vitals } from './vitals';
import type { SoakWorld } from './world';

export interface SoakOutcome {
  opts: object;
  world: SoakWorld;
  load: CustomerLoad;
  http: HttpLog;
  faults: FaultSchedule;
  operator: SoakOperator;
  leaks: LeakFigures[];
  connections: { warm: number; end: number };
  checks: Check[];
  probe: DatabaseProbe;
}

function countBy(items: (string | number)[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const item of items) counts[item] = (counts[item] ?? 0) + 1;
  return counts;
}

const listed = (counts: Record<string, number>) =>
  Object.entries(counts)
    .map(([what, n]) => `${what}: ${n}`)
    .join(', ');

/** The report in bench/results/: the seed and options, the fault log, the answers, the memory figures, each check and every 5xx. */
export function writeReport(out: string, o: SoakOutcome): void {
  const { record } = o.load;
  const report = {
    generatedAt: new Date().toISOString(),
    machine: { cpus: cpus().length, memoryGb: Math.round(totalmem() / 2 ** 30) },
    options: o.opts,
    requests: o.http.exchanges.length,
    statuses: countBy(o.http.exchanges.map((e) => e.status)),
    /** Every answer of 400 or more (and none) by status and route: which route a status came from. */
    refusalsByRoute: countBy(
      o.http.exchanges.filter((e) => e.status >= 400 || e.status === 0).map((e) => `${e.status} ${e.method} ${e.route}`),
    ),
    actions: countBy(record.actions.map((a) => a.type)),
    replays: record.replays.length,
    revocations: record.revocations.length,
    mcpSessions: record.mcp.sessions,
    backupsQueued: o.operator.record.backupsQueued,
    operatorCommandsFailed: o.operator.record.failed,
    mails: o.world.smtp.received.length,
    webhooksReceived: o.world.receiver.received.length,
    apiStarts: Object.fromEntries(o.world.apis.map((a) => [a.name, a.starts])),
    crashes: o.world.apis.flatMap((a) => a.crashes.map((c) => ({ api: a.name, ...c, at: c.at - o.faults.began }))),
    faults: o.faults.log,
    /** The probe's ticks on its own connections, and each one that took a second or more: the database server itself slow. */
    databaseProbe: { ticks: o.probe.ticks, stalls: o.probe.stalls },
    leaks: o.leaks,
    connections: o.connections,
    checks: o.checks.map((c) => ({
      name: c.name,
      checked: c.checked,
      findings: c.findings.length,
      informational: c.informational ?? false,
      details: c.findings.slice(0, 50),
    })),
    serverErrors: o.http.exchanges
      .filter((e) => e.status >= 500 || e.status === 0)
      .map((e) => ({ ...e, explainedBy: o.faults.explains(e.status || 504, e.at, e.ms).map((f) => f.kind) })),
  };
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, `${JSON.stringify(report, null, 2)}\n`);
}

/** What the soak prints at its end. */
export function summary(o: SoakOutcome): string[] {
  const shown = (v?: Vitals) => (v ? `RSS ${v.rssMb} MB, live heap ${v.liveHeapMb ?? '-'} MB, ${v.fds} fds` : 'not measured');
  return [
    `requests ${o.http.exchanges.length} (${listed(countBy(o.http.exchanges.map((e) => e.status)))})`,
    `actions accepted: ${listed(countBy(o.load.record.actions.map((a) => a.type)))}; MCP sessions ${o.load.record.mcp.sessions}; backups queued ${o.operator.record.backupsQueued} (${o.operator.record.failed.length} backup:run failed)`,
    `faults ${o.faults.log.length}: ${listed(countBy(o.faults.log.map((f) => f.kind)))}`,
    `database probe: ${o.probe.ticks} ticks, ${o.probe.stalls.length} of a second or more (longest ${Math.max(0, ...o.probe.stalls.map((s) => s.ms))} ms)`,
    ...o.leaks.map((l) => `${l.api}: after warm-up ${shown(l.warm)}; at the end ${shown(l.end)}`),
    `database connections: ${o.connections.warm} after warm-up, ${o.connections.end} at the end`,
    ...o.checks.map(
      (c) =>
        `${c.findings.length ? (c.informational ? 'note' : 'FAIL') : 'ok  '} ${c.name} (${c.checked} checked${c.findings.length ? `, ${c.findings.length} findings` : ''})`,
    ),
    ...o.checks.flatMap((c) => c.findings.slice(0, 20).map((f) => `  ${c.name}: ${f}`)),
  ];
}
