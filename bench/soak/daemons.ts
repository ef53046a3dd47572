import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { freePort } from '../../test/support/server-process';
import { waitForOrFail } from '../../test/support/wait-for';

/** A PostgreSQL cluster of the soak's own (Debian's pg_createcluster), so restarting it harms nothing else. */
export class SoakPostgres {
  readonly version = readdirSync('/etc/postgresql').sort().at(-1)!;
  constructor(
    readonly port: number,
    readonly cluster = 'soak',
  ) {}

  url(database = 'soak'): string {
    return `postgres://postgres@127.0.0.1:${this.port}/${database}`;
  }

  async start(): Promise<void> {
    this.drop();
    execFileSync('pg_createcluster', [this.version, this.cluster, '--port', String(this.port), '--', '--auth=trust'], { stdio: 'ignore' });
    this.ctl('start');
    await this.ready();
    this.psql('CREATE DATABASE soak');
  }

  /** A fast restart: every connection is cut, as a failover or a crash would. */
  async restart(): Promise<void> {
    this.ctl('restart', '-m', 'fast');
    await this.ready();
  }

  psql(sql: string, database = 'postgres'): string {
    return execFileSync('psql', ['-h', '127.0.0.1', '-p', String(this.port), '-U', 'postgres', '-d', database, '-AtXqc', sql], {
      encoding: 'utf8',
      // The audit reads every webhook delivery of an hour (tens of MB).
      maxBuffer: 1 << 30,
    });
  }

  /** Rows of `sql` as objects (one JSON object per row). */
  rows<T>(sql: string): T[] {
    const out = this.psql(`SELECT coalesce(json_agg(q), '[]') FROM (${sql}) q`, 'soak');
    return JSON.parse(out) as T[];
  }

  drop(): void {
    try {
      execFileSync('pg_dropcluster', [this.version, this.cluster, '--stop'], { stdio: 'ignore' });
    } catch {
      // None yet.
    }
  }

  private ctl(...args: string[]): void {
    execFileSync('pg_ctlcluster', ['--skip-systemctl-redirect', this.version, this.cluster, ...args], { stdio: 'ignore' });
  }

  private async ready(): Promise<void> {
    await waitForOrFail(
      async () => {
        try {
          execFileSync('pg_isready', ['-h', '127.0.0.1', '-p', String(this.port), '-q']);
          return true;
        } catch {
          return false;
        }
      },
      (up) => up,
      30_000,
      () => `the soak's PostgreSQL did not come up on ${this.port}`,
    );
  }
}

/** A redis-server of the soak's own on a free port, keeping nothing on disk; killed with SIGKILL and started again. */
export class SoakRedis {
  private child?: ChildProcess;
  port = 0;

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    if (!this.port) this.port = await freePort();
    this.child = spawn('redis-server', ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
      stdio: 'ignore',
    });
    await waitForOrFail(
      async () => {
        try {
          return execFileSync('redis-cli', ['-p', String(this.port), 'ping'], {
            encoding: 'utf8',
            stdio: ['ignore', 'pipe', 'ignore'],
          }).trim();
        } catch {
          return '';
        }
      },
      (answer) => answer === 'PONG',
      10_000,
      () => `the soak's Redis did not start on ${this.port}`,
    );
  }

  kill(): void {
    this.child?.kill('SIGKILL');
    this.child = undefined;
  }

  stop(): void {
    this.child?.kill('SIGTERM');
    this.child = undefined;
  }
}
