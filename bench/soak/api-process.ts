import { ChildProcess, spawn } from 'node:child_process';
import { readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { SERVER } from '../../test/support/run-cli';

/** bench/heap-probe.js: on SIGUSR2 a full collection, and the heap's live set written to a file. */
const HEAP_PROBE = join(__dirname, '../heap-probe.js');
/** pg-client-origins.js: a pg Client's error nobody listens to (it ends the process) printed with where the client was made and checked out. */
const PG_CLIENT_ORIGINS = join(__dirname, 'pg-client-origins.js');

export interface ProcessFigures {
  rssMb: number;
  fds: number;
}

/** One API replica (the built server), started again on the same port after a kill. */
export class SoakApi {
  private child?: ChildProcess;
  private tail = '';
  /** When the current process began (ms since the epoch). */
  startedAt = 0;
  starts = 0;
  /** Exits the soak did not cause (a crash), each followed by a start, as a supervisor would. */
  readonly crashes: { at: number; exit: string; output: string }[] = [];
  private stopping = false;
  /** The process's error-level log lines (pino's level 50 and above), with when they came (ms since the epoch). */
  readonly errorLines: { at: number; line: string }[] = [];
  private partial = '';

  constructor(
    readonly name: string,
    readonly port: number,
    private readonly env: Record<string, string | undefined>,
    private readonly heapFile: string,
  ) {}

  get pid(): number | undefined {
    return this.child?.pid;
  }

  get running(): boolean {
    return !!this.child && this.child.exitCode === null && this.child.signalCode === null;
  }

  async start(timeoutMs = 120_000): Promise<void> {
    const child = spawn(process.execPath, [SERVER], {
      env: {
        PATH: process.env.PATH,
        ...this.env,
        PORT: String(this.port),
        NODE_OPTIONS: `--require ${HEAP_PROBE} --require ${PG_CLIENT_ORIGINS}`,
        BENCH_HEAP_PROBE_FILE: this.heapFile,
      } as NodeJS.ProcessEnv,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child = child;
    const keep = (chunk: Buffer) => {
      this.tail = (this.tail + chunk.toString()).slice(-20_000);
      this.keepErrorLines(chunk.toString());
    };
    child.stdout!.on('data', keep);
    child.stderr!.on('data', keep);
    const exited = new Promise<never>((_, reject) =>
      child.once('exit', (code, signal) =>
        reject(new Error(`${this.name} exited at start (${code ?? signal}):\n${this.tail.slice(-3000)}`)),
      ),
    );
    this.stopping = false;
    await Promise.race([this.ready(timeoutMs), exited]);
    this.startedAt = Date.now();
    this.starts++;
    child.once('exit', (code, signal) => {
      if (this.child !== child || this.stopping) return;
      this.crashes.push({ at: Date.now(), exit: String(code ?? signal), output: this.tail.slice(-4000) });
      setTimeout(() => {
        if (this.child === child && !this.stopping) this.start().catch(() => undefined);
      }, 1_000);
    });
  }

  /** The error lines logged between `from` and `to` (ms since the epoch). */
  errorsBetween(from: number, to: number): string[] {
    return this.errorLines.filter((e) => e.at >= from && e.at <= to).map((e) => e.line);
  }

  private keepErrorLines(text: string): void {
    const lines = (this.partial + text).split('\n');
    this.partial = lines.pop() ?? '';
    for (const line of lines) {
      if (!/"level":(50|60)/.test(line)) continue;
      this.errorLines.push({ at: Date.now(), line: line.slice(0, 1_500) });
      if (this.errorLines.length > 2_000) this.errorLines.shift();
    }
  }

  private async ready(timeoutMs: number): Promise<void> {
    const until = Date.now() + timeoutMs;
    while (this.running) {
      try {
        if ((await fetch(`http://127.0.0.1:${this.port}/health/ready`, { signal: AbortSignal.timeout(2_000) })).status === 200) return;
      } catch {
        // Not listening yet.
      }
      if (Date.now() > until) throw new Error(`${this.name} not ready in ${timeoutMs} ms:\n${this.tail.slice(-3000)}`);
      await sleep(200);
    }
  }

  /** SIGKILL: no shutdown hook runs, requests in flight are cut. */
  async kill(): Promise<void> {
    const child = this.child;
    if (!child || !this.running) return;
    this.stopping = true;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  }

  async stop(): Promise<void> {
    const child = this.child;
    this.stopping = true;
    if (!child || !this.running) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    await exited;
    clearTimeout(timer);
  }

  figures(): ProcessFigures | undefined {
    const pid = this.pid;
    if (!pid || !this.running) return undefined;
    try {
      const status = readFileSync(`/proc/${pid}/status`, 'utf8');
      const rssKb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
      return { rssMb: Math.round(rssKb / 102.4) / 10, fds: readdirSync(`/proc/${pid}/fd`).length };
    } catch {
      return undefined;
    }
  }

  /** The heap in use right after a full collection (MB): the live set, which a leak grows. */
  async liveHeapMb(): Promise<number | undefined> {
    const pid = this.pid;
    if (!pid || !this.running) return undefined;
    rmSync(this.heapFile, { force: true });
    process.kill(pid, 'SIGUSR2');
    for (let i = 0; i < 100; i++) {
      await sleep(100);
      try {
        if (statSync(this.heapFile).size > 0) return Math.round(JSON.parse(readFileSync(this.heapFile, 'utf8')).heapUsed / 104857.6) / 10;
      } catch {
        // Not written yet.
      }
    }
    return undefined;
  }

  output(): string {
    return this.tail;
  }
}
