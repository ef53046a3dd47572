import { SoakApi } from './api-process';

export interface Vitals {
  rssMb: number;
  fds: number;
  /** The heap after a full collection. */
  liveHeapMb?: number;
}

export interface LeakFigures {
  api: string;
  /** Of the process running at the end, once warmed up: its live heap then, its highest RSS and descriptor count over the next `warmupMs`. */
  warm?: Vitals & { atMs: number };
  end?: Vitals;
  /** The age of the process running at the end. */
  ageMs: number;
}

/**
 * The replicas' memory and descriptors: for each process (a kill starts a new one), what it holds
 * once warmed up, `warmupMs` after its start, and the highest RSS and descriptor count over the next `warmupMs`.
 */
export class VitalsTracker {
  private readonly warm = new Map<string, { pid: number; vitals: Vitals & { atMs: number } }>();
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly apis: SoakApi[],
    private readonly warmupMs: number,
    private readonly began: number,
  ) {}

  start(): void {
    this.timer = setInterval(() => void this.sample(), 5_000);
  }

  stop(): void {
    clearInterval(this.timer);
  }

  private async sample(): Promise<void> {
    for (const api of this.apis) {
      const figures = api.figures();
      const age = Date.now() - api.startedAt;
      if (!figures || !api.pid || age < this.warmupMs) continue;
      const known = this.warm.get(api.name);
      if (!known || known.pid !== api.pid) {
        const liveHeapMb = await api.liveHeapMb();
        this.warm.set(api.name, { pid: api.pid, vitals: { ...figures, liveHeapMb, atMs: Date.now() - this.began } });
      } else if (age < 2 * this.warmupMs) {
        known.vitals.rssMb = Math.max(known.vitals.rssMb, figures.rssMb);
        known.vitals.fds = Math.max(known.vitals.fds, figures.fds);
      }
    }
  }

  async figures(): Promise<LeakFigures[]> {
    const out: LeakFigures[] = [];
    for (const api of this.apis) {
      const figures = api.figures();
      const known = this.warm.get(api.name);
      const end = figures && { ...figures, liveHeapMb: await api.liveHeapMb() };
      out.push({ api: api.name, warm: known && known.pid === api.pid ? known.vitals : undefined, end, ageMs: Date.now() - api.startedAt });
    }
    return out;
  }
}
