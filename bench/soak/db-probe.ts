import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { Client } from 'pg';

/** A tick of the probe that took `ms` or more: the database server itself was slow then. */
export interface DatabaseStall {
  /** ms since the soak began */
  at: number;
  ms: number;
  /** The probe's statement that was slow: its own `SELECT 1`, or a one-row insert and its commit. */
  statement: string;
  /** What the database's other sessions waited on while the tick was slow (`type:event`, `CPU` for none), with counts. */
  waits: Record<string, number>;
  /** The machine then: one-minute load average, and the share of time (avg10, %) some task waited on I/O and on a CPU. */
  load: number;
  ioPressure?: number;
  cpuPressure?: number;
}

/** What a stall's tick saw of the database and the machine while it was slow. */
type StallEvidence = Omit<DatabaseStall, 'at' | 'ms' | 'statement'>;

const SLOW_MS = 1_000;

/**
 * A client of the database on connections of its own, outside the API's pools, that times a
 * `SELECT 1` and a one-row INSERT with its COMMIT every second. A tick slower than a second is a
 * stall of the server itself (its CPU or its disk, where the machine's other daemons share both),
 * not of the API's locks or pool: the probe touches only a table of its own. While a tick is slow,
 * it reads what the database's sessions wait on and the machine's pressure, as the stall's evidence.
 */
export class DatabaseProbe {
  readonly stalls: DatabaseStall[] = [];
  ticks = 0;
  private timer?: NodeJS.Timeout;
  private ticking?: Promise<void>;
  private client?: Client;
  private observer?: Client;

  constructor(
    private readonly url: string,
    private readonly began: number,
    private readonly slowMs = SLOW_MS,
  ) {}

  start(): void {
    this.timer = setInterval(() => {
      if (!this.ticking) this.ticking = this.tick().finally(() => (this.ticking = undefined));
    }, 1_000);
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.ticking;
    await Promise.all([this.client, this.observer].map((c) => c?.end().catch(() => undefined)));
  }

  /** Stalls overlapping `[from, to]` (ms since the soak began). */
  during(from: number, to: number): DatabaseStall[] {
    return stallsDuring(this.stalls, from, to);
  }

  private async tick(): Promise<void> {
    let statement = 'SELECT 1';
    const started = Date.now();
    // Read once the tick has run `slowMs`, while it is still slow.
    let evidence: Promise<StallEvidence | undefined> | undefined;
    const slow = setTimeout(() => (evidence = this.evidence().catch(() => undefined)), this.slowMs);
    try {
      const client = await this.connected();
      await client.query('SELECT 1');
      statement = 'INSERT and COMMIT of one row';
      await client.query('BEGIN');
      await client.query('INSERT INTO soak_probe.ticks (at) VALUES (now())');
      await client.query('COMMIT');
      this.ticks++;
    } catch {
      // A restart's cut connection: the fault's, not a stall; the next tick connects again.
      await this.client?.end().catch(() => undefined);
      this.client = undefined;
      return;
    } finally {
      clearTimeout(slow);
    }
    const ms = Date.now() - started;
    if (ms < this.slowMs) return;
    this.stalls.push({ at: started - this.began, ms, statement, ...((await evidence) ?? { waits: {}, load: loadavg()[0] }) });
  }

  /** What the other sessions wait on and the machine's pressure. */
  private async evidence(): Promise<StallEvidence> {
    const load = loadavg()[0];
    const pressure = { ioPressure: pressureAvg10('io'), cpuPressure: pressureAvg10('cpu') };
    return { waits: await this.waits(), load: Math.round(load * 10) / 10, ...pressure };
  }

  /** What the database's other sessions wait on; a connection a restart cut is made again once. */
  private async waits(retried = false): Promise<Record<string, number>> {
    try {
      this.observer ??= await this.connect();
      const { rows } = await this.observer.query<{ wait: string; n: number }>(
        `SELECT coalesce(wait_event_type || ':' || wait_event, 'CPU') AS wait, count(*)::int AS n
           FROM pg_stat_activity
          WHERE datname = current_database() AND state <> 'idle' AND pid <> pg_backend_pid()
          GROUP BY 1 ORDER BY 2 DESC`,
      );
      return Object.fromEntries(rows.map((r) => [r.wait, r.n]));
    } catch (err) {
      await this.observer?.end().catch(() => undefined);
      this.observer = undefined;
      if (retried) throw err;
      return this.waits(true);
    }
  }

  private async connected(): Promise<Client> {
    if (this.client) return this.client;
    const client = await this.connect();
    await client.query('CREATE SCHEMA IF NOT EXISTS soak_probe; CREATE TABLE IF NOT EXISTS soak_probe.ticks (at timestamptz NOT NULL)');
    this.client = client;
    return client;
  }

  private async connect(): Promise<Client> {
    const client = new Client({ connectionString: this.url, connectionTimeoutMillis: 5_000, application_name: 'soak-probe' });
    client.on('error', () => undefined);
    await client.connect();
    return client;
  }
}

/** Stalls overlapping `[from, to]` (ms since the soak began). */
export function stallsDuring(stalls: DatabaseStall[], from: number, to: number): DatabaseStall[] {
  return stalls.filter((s) => s.at <= to && s.at + s.ms >= from);
}

/** One stall in a line: when, how long, what waited, the machine's pressure. */
export function describeStall(s: DatabaseStall): string {
  const waits = Object.entries(s.waits)
    .map(([w, n]) => `${w} ×${n}`)
    .join(', ');
  const pressure = [
    s.ioPressure !== undefined && `I/O pressure ${s.ioPressure}%`,
    s.cpuPressure !== undefined && `CPU pressure ${s.cpuPressure}%`,
  ]
    .filter(Boolean)
    .join(', ');
  return `the probe's ${s.statement} took ${s.ms} ms at ${s.at} ms (sessions waiting on ${waits || 'nothing read'}; load ${s.load}${pressure ? `, ${pressure}` : ''})`;
}

/** /proc/pressure/<what>'s "some avg10": the share of the last ten seconds some task waited on it. */
function pressureAvg10(what: 'io' | 'cpu'): number | undefined {
  try {
    const some = readFileSync(`/proc/pressure/${what}`, 'utf8').match(/^some avg10=([\d.]+)/m);
    return some ? Number(some[1]) : undefined;
  } catch {
    return undefined;
  }
}
