import { ChildProcess, spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { SERVER } from '../../test/support/run-cli';

/** bench/heap-probe.js: on SIGUSR2 a full collection, and the heap's live set written to a file. */
const HEAP_PROBE = join(__dirname, '../heap-probe.js');
/** Debian's libfaketime: the process's wall clock offset by what its timestamp file says (re-read every second). */
export const LIBFAKETIME = '/usr/lib/x86_64-linux-gnu/faketime/libfaketimeMT.so.1';
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
    private readonly clockFile: string,
  ) {
    writeFileSync(clockFile, '+0\n');
  }

  /**
   * Steps the process's wall clock to `offsetSeconds` from the machine's (0: back in step); the
   * monotonic clock, which timers use, is left alone, as a step of the system clock leaves it.
   */
  stepClock(offsetSeconds: number): void {
    writeFileSync(this.clockFile, `${offsetSeconds >= 0 ? '+' : ''}${offsetSeconds}\n`);
  }

  /** How far the process's wall clock is from ours, in whole seconds, as its `Date` header shows it. */
  async clockOffsetSeconds(): Promise<number> {
    const answer = await fetch(`http://127.0.0.1:${this.port}/health/live`, { signal: AbortSignal.timeout(5_000) });
    await answer.arrayBuffer();
    return Math.round((Date.parse(answer.headers.get('date') ?? '') - Date.now()) / 1000);
  }

  private clockEnv(): Record<string, string> {
    if (!existsSync(LIBFAKETIME)) return {};
    return {
      LD_PRELOAD: LIBFAKETIME,
      FAKETIME_TIMESTAMP_FILE: this.clockFile,
      FAKETIME_CACHE_DURATION: '1',
      FAKETIME_DONT_FAKE_MONOTONIC: '1',
    };
  }

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
        ...this.clockEnv(),
      } as NodeJS.ProcessEnv,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child = child;
    // The process's age counts from here: a warm-up measured on a process just restarted is none.
    this.startedAt = Date.now();
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
    this.starts++;
    child.once('exit', (code, signal) => {
      if (this.child !== child || this.stopping) return;
      this.crashes.push({ at: Date.now(), exit: String(code ?? signal), output: this.tail.slice(-4000) });
      setTimeout(() => {
        if (this.child === child && !this.stopping) this.start().catch(() => undefined);
      }, 1_000);
    });
  }

  /** The warning and error lines logged between `from` and `to` (ms since the epoch). */
  errorsBetween(from: number, to: number): string[] {
    return this.errorLines.filter((e) => e.at >= from && e.at <= to).map((e) => e.line);
  }

  private keepErrorLines(text: string): void {
    const lines = (this.partial + text).split('\n');
    this.partial = lines.pop() ?? '';
    for (const line of lines) {
      // A request's own line says only its status; the cause is on a line of its own (the exception filter's).
      if (!/"level":(40|50|60)/.test(line) || /"msg":"request (completed|errored|aborted)"/.test(line)) continue;
      this.errorLines.push({ at: Date.now(), line: line.slice(0, 1_500) });
      if (this.errorLines.length > 20_000) this.errorLines.shift();
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
