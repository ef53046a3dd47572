import { setTimeout as sleep } from 'node:timers/promises';
import { signalGateway, startGateway } from '../../test/support/ceph';
import { SoakApi } from './api-process';
import { Random } from './random';
import { SoakWorld } from './world';

export type FaultKind =
  | 'api-1-kill'
  | 'api-2-kill'
  | 'postgres-restart'
  | 'redis-kill'
  | 'libvirtd-freeze'
  | 'smtp-refusing'
  | 'receiver-500'
  | 'receiver-hang'
  | 'prometheus-stop'
  | 'radosgw-kill'
  | 'api-clock-step';

/** A fault nobody injected: the database server itself slow, as the probe saw it (db-probe.ts). */
export type ObservedKind = 'database-stall';

export interface FaultRecord {
  kind: FaultKind | ObservedKind;
  /** ms since the soak began */
  at: number;
  endedAt?: number;
  detail: string;
  error?: string;
}

export const FAULT_WEIGHTS: Record<FaultKind, number> = {
  'api-1-kill': 2,
  'api-2-kill': 2,
  'postgres-restart': 2,
  'redis-kill': 1,
  'libvirtd-freeze': 2,
  'smtp-refusing': 1,
  'receiver-500': 1,
  'receiver-hang': 1,
  'prometheus-stop': 1,
  'radosgw-kill': 1,
  'api-clock-step': 1,
};

/** The kinds named in `--faults a,b` with their usual weights; an unknown name is an error. */
export function chosenKinds(list: string | undefined): Partial<Record<FaultKind, number>> {
  if (!list) return FAULT_WEIGHTS;
  const chosen: Partial<Record<FaultKind, number>> = {};
  for (const name of list.split(',').map((n) => n.trim())) {
    if (!(name in FAULT_WEIGHTS)) throw new Error(`unknown fault ${name}: one of ${Object.keys(FAULT_WEIGHTS).join(', ')}`);
    chosen[name as FaultKind] = FAULT_WEIGHTS[name as FaultKind];
  }
  return chosen;
}

/** Which status codes a fault explains while it lasts and for `graceMs` after it. */
export const EXPLAINS: Record<FaultKind | ObservedKind, { statuses: number[]; graceMs: number }> = {
  // nginx answers 502 for a request the killed process was holding (a POST is not retried elsewhere).
  'api-1-kill': { statuses: [502, 503, 504], graceMs: 2_000 },
  'api-2-kill': { statuses: [502, 503, 504], graceMs: 2_000 },
  // Requests whose statement was cut, and those that find no connection until the pool reconnects:
  // 503 unavailable, never 500 (a 500 here was a transaction's released runner, fixed).
  'postgres-restart': { statuses: [503], graceMs: 10_000 },
  'redis-kill': { statuses: [503], graceMs: 5_000 },
  'libvirtd-freeze': { statuses: [503, 504], graceMs: 10_000 },
  'smtp-refusing': { statuses: [], graceMs: 0 },
  'receiver-500': { statuses: [], graceMs: 0 },
  'receiver-hang': { statuses: [], graceMs: 0 },
  // A graph's read while the metrics system is away: 503 unavailable.
  'prometheus-stop': { statuses: [503], graceMs: 2_000 },
  // A ticket with attachments while the object store is away: 503; a presigned upload sent to it: no answer.
  'radosgw-kill': { statuses: [503, 504], graceMs: 5_000 },
  // One replica's wall clock ahead or behind the other's and the database's: no request may fail for it.
  'api-clock-step': { statuses: [], graceMs: 0 },
  // Requests whose wait for a connection ran out while the server's own trivial statements took over a second.
  'database-stall': { statuses: [503], graceMs: 1_000 },
};

/**
 * Faults on a seeded schedule, about one every `meanGapMs`, several at once when their times
 * overlap (never two of one kind). Each is recorded with when it began and ended.
 */
export class FaultSchedule {
  readonly log: FaultRecord[] = [];
  /** Stalls of the database server the probe observed: not injected, not counted as faults, but each explains a 503 while it lasted. */
  readonly observed: FaultRecord[] = [];
  private readonly active = new Set<FaultKind>();
  private readonly running: Promise<void>[] = [];

  constructor(
    private readonly world: SoakWorld,
    private readonly random: Random,
    readonly began: number,
    private readonly short: boolean,
    private readonly say: (line: string) => void,
    private readonly kinds: Partial<Record<FaultKind, number>> = FAULT_WEIGHTS,
  ) {}

  async run(untilMs: number, meanGapMs: number): Promise<void> {
    await sleep(Math.min(meanGapMs, 20_000));
    while (Date.now() + 5_000 < untilMs) {
      const kind = this.random.weighted(this.kinds as Record<FaultKind, number>);
      if (!this.active.has(kind)) this.running.push(this.inject(kind));
      await sleep(this.random.int(Math.round(meanGapMs / 2), Math.round((meanGapMs * 3) / 2)));
    }
    await Promise.all(this.running);
  }

  /**
   * Which faults explain `status` for a request that began at `at` (ms since the soak began) and
   * lasted `ms`: those that struck while it was in flight or had struck shortly before it.
   */
  explains(status: number, at: number, ms = 0): FaultRecord[] {
    return [...this.log, ...this.observed].filter(
      (f) =>
        EXPLAINS[f.kind].statuses.includes(status) && at + ms >= f.at - 1_000 && at <= (f.endedAt ?? Infinity) + EXPLAINS[f.kind].graceMs,
    );
  }

  private async inject(kind: FaultKind): Promise<void> {
    this.active.add(kind);
    const record: FaultRecord = { kind, at: Date.now() - this.began, detail: '' };
    this.log.push(record);
    try {
      record.detail = await this.apply(kind);
    } catch (err) {
      record.error = (err as Error).message.slice(0, 2000);
    } finally {
      record.endedAt = Date.now() - this.began;
      this.active.delete(kind);
      this.say(`fault ${kind} ${record.detail}${record.error ? ` FAILED: ${record.error}` : ''} (${record.at} -> ${record.endedAt} ms)`);
    }
  }

  private span(long: [number, number], short: [number, number]): number {
    const [min, max] = this.short ? short : long;
    return this.random.int(min, max);
  }

  private async apply(kind: FaultKind): Promise<string> {
    const world = this.world;
    switch (kind) {
      case 'api-1-kill':
      case 'api-2-kill': {
        const api = world.apis[kind === 'api-1-kill' ? 0 : 1];
        const down = this.span([1_000, 8_000], [1_000, 3_000]);
        await api.kill();
        await sleep(down);
        await api.start();
        return `kill -9 ${api.name}, started again after ${down} ms`;
      }
      case 'postgres-restart':
        await world.postgres.restart();
        return 'pg_ctlcluster restart -m fast';
      case 'redis-kill': {
        const down = this.span([5_000, 20_000], [3_000, 6_000]);
        world.redis.kill();
        await sleep(down);
        await world.redis.start();
        return `kill -9 redis-server, started again after ${down} ms`;
      }
      case 'libvirtd-freeze': {
        const frozen = this.span([30_000, 60_000], [10_000, 20_000]);
        await world.libvirtd.stall(frozen);
        return `SIGSTOP libvirtd for ${frozen} ms`;
      }
      case 'smtp-refusing': {
        const down = this.span([20_000, 60_000], [5_000, 15_000]);
        await world.smtp.stop();
        await sleep(down);
        await world.smtp.start();
        return `SMTP server closed for ${down} ms (connections refused)`;
      }
      case 'receiver-500': {
        const lasting = this.span([20_000, 60_000], [5_000, 15_000]);
        world.receiverMode = 'error';
        await sleep(lasting);
        world.receiverMode = 'ok';
        return `webhook receiver answered 500 for ${lasting} ms`;
      }
      case 'prometheus-stop': {
        const down = this.span([20_000, 60_000], [5_000, 15_000]);
        await world.prometheus.stopPrometheus();
        await sleep(down);
        await world.prometheus.restartPrometheus();
        return `Prometheus stopped for ${down} ms`;
      }
      case 'radosgw-kill': {
        const down = this.span([10_000, 40_000], [5_000, 10_000]);
        signalGateway('SIGKILL');
        await sleep(down);
        await startGateway();
        return `kill -9 radosgw, started again after ${down} ms`;
      }
      case 'api-clock-step': {
        const api = world.apis[this.random.int(0, world.apis.length - 1)];
        const offset = (this.random.next() < 0.5 ? -1 : 1) * this.span([30, 300], [30, 90]);
        const lasting = this.span([60_000, 180_000], [10_000, 20_000]);
        api.stepClock(offset);
        try {
          // The offset is read again each second: its Date header shows it after that (or the fault failed).
          await sleep(2_500);
          const seen = await clockSeen(api);
          if (Math.abs(seen - offset) > 2) throw new Error(`${api.name}'s clock stepped ${offset} s, its Date header ${seen} s off`);
          await sleep(lasting - 2_500);
          return `${api.name}'s clock stepped ${offset > 0 ? '+' : ''}${offset} s (its Date header ${seen} s off), back in step after ${lasting} ms`;
        } finally {
          api.stepClock(0);
        }
      }
      case 'receiver-hang': {
        const lasting = this.span([20_000, 60_000], [5_000, 15_000]);
        world.receiver.delayMs = 20_000;
        await sleep(lasting);
        world.receiver.delayMs = 0;
        return `webhook receiver held every request 20 s for ${lasting} ms`;
      }
    }
  }
}

/** The replica's clock offset as its Date header shows it, asked again while it is down (another fault's kill) for up to 20 s. */
async function clockSeen(api: SoakApi): Promise<number> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await api.clockOffsetSeconds();
    } catch (err) {
      if (attempt === 20) throw err;
      await sleep(1_000);
    }
  }
}
