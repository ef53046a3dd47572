import { ChildProcess, execFile, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createSocket } from 'node:dgram';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './server-process';

/** Debian's PowerDNS Authoritative (`bash scripts/ensure-powerdns.sh` installs it, with dig and sqlite3). */
export const PDNS_SERVER = '/usr/sbin/pdns_server';
const SCHEMA = '/usr/share/pdns-backend-sqlite3/schema/schema.sqlite3.sql';
const START_TIMEOUT_MS = 30_000;

/**
 * Whether PowerDNS tests can run: pdns_server is installed. Outside CI a missing server skips the
 * suites (with a line saying so); in CI (`CI` set) it is a failure, thrown here.
 */
export function powerDnsAvailable(): boolean {
  if (existsSync(PDNS_SERVER)) return true;
  const ci = process.env.CI;
  if (ci && ci !== 'false' && ci !== '0') {
    throw new Error(`${PDNS_SERVER} is missing in CI: run bash scripts/ensure-powerdns.sh before the tests.`);
  }
  process.stderr.write(
    `Skipping PowerDNS tests: ${PDNS_SERVER} is missing (bash scripts/ensure-powerdns.sh). In CI (CI set) they fail instead.\n`,
  );
  return false;
}

export interface PowerDns {
  /** The webserver's base URL (`http://127.0.0.1:<port>`), for PowerDnsProvider's apiUrl. */
  apiUrl: string;
  apiKey: string;
  /** `localhost`, the server id of a stock PowerDNS. */
  serverId: string;
  /** The DNS port on 127.0.0.1, UDP and TCP. */
  dnsPort: number;
  /** The running server's pid (changes on restart; 0 while killed). */
  readonly pid: number;
  /** SIGSTOP: the ports stay open and nothing answers (requests time out). */
  pause(): void;
  /** SIGCONT after pause(). */
  resume(): void;
  /** SIGKILL, and waits for the exit: connections are refused until restart(). */
  kill(): Promise<void>;
  /** Starts the server again after kill(), same ports, same database; resolves once the API answers. */
  restart(): Promise<void>;
  /** Kills the server and removes its folder. */
  stop(): Promise<void>;
}

/** The app's settings that point it at this PowerDNS. */
export function powerDnsEnv(pdns: PowerDns): Record<string, string> {
  return { DNS_PROVIDER: 'powerdns', POWERDNS_API_URL: pdns.apiUrl, POWERDNS_API_KEY: pdns.apiKey };
}

/**
 * A private PowerDNS Authoritative for one suite: a folder of its own in the temp folder with a
 * sqlite database and pdns.conf, free loopback ports, `pdns_server` in the foreground; resolves once
 * `GET /api/v1/servers/localhost` answers 200. Nothing leaves this machine: no resolver, no notify
 * (zones are Native), no security polling. Caches are off, so dig sees every change at once.
 */
export async function startPowerDns(): Promise<PowerDns> {
  // A port found free may be taken by another process before pdns_server binds it: fresh ports, up to three times.
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnFreePorts();
    } catch (err) {
      if (!(err instanceof PortTaken) || attempt === 3) throw err;
    }
  }
}

/** pdns_server said a port it was to bind is in use. */
class PortTaken extends Error {}

async function startOnFreePorts(): Promise<PowerDns> {
  const dir = mkdtempSync(join(tmpdir(), 'powerdns-'));
  try {
    const database = join(dir, 'pdns.sqlite3');
    execFileSync('sqlite3', [database, `.read ${SCHEMA}`], { stdio: ['ignore', 'ignore', 'pipe'] });
    const apiKey = randomBytes(16).toString('hex');
    const dnsPort = await freeUdpAndTcpPort();
    const webPort = await freePort();
    const settings = {
      launch: 'gsqlite3',
      'gsqlite3-database': database,
      'local-address': '127.0.0.1',
      'local-port': dnsPort,
      webserver: 'yes',
      api: 'yes',
      'api-key': apiKey,
      'webserver-address': '127.0.0.1',
      'webserver-port': webPort,
      'webserver-allow-from': '127.0.0.1',
      'socket-dir': dir,
      guardian: 'no',
      daemon: 'no',
      'disable-syslog': 'yes',
      'write-pid': 'no',
      'security-poll-suffix': '',
      'only-notify': '',
      'cache-ttl': 0,
      'query-cache-ttl': 0,
      'negquery-cache-ttl': 0,
      'zone-cache-refresh-interval': 0,
      'zone-metadata-cache-ttl': 0,
    };
    writeFileSync(
      join(dir, 'pdns.conf'),
      Object.entries(settings)
        .map(([k, v]) => `${k}=${v}\n`)
        .join(''),
    );
    const apiUrl = `http://127.0.0.1:${webPort}`;
    const server = new PdnsProcess(dir, apiUrl, apiKey);
    await server.start();
    return {
      apiUrl,
      apiKey,
      serverId: 'localhost',
      dnsPort,
      get pid() {
        return server.child?.pid ?? 0;
      },
      pause: () => server.child?.kill('SIGSTOP'),
      resume: () => server.child?.kill('SIGCONT'),
      kill: () => server.kill(),
      restart: () => server.start(),
      async stop() {
        await server.kill();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
}

class PdnsProcess {
  child: ChildProcess | null = null;
  private exited: Promise<void> = Promise.resolve();
  private output = '';

  constructor(
    private readonly dir: string,
    private readonly apiUrl: string,
    private readonly apiKey: string,
  ) {}

  async start(): Promise<void> {
    if (this.child) throw new Error('PowerDNS is running already');
    this.output = '';
    const child = spawn(PDNS_SERVER, [`--config-dir=${this.dir}`], { stdio: ['ignore', 'pipe', 'pipe'] });
    this.child = child;
    child.stdout!.on('data', (chunk) => (this.output += chunk));
    child.stderr!.on('data', (chunk) => (this.output += chunk));
    this.exited = new Promise((resolve) => child.once('exit', () => resolve()));
    let gone = false;
    void this.exited.then(() => (gone = true));
    const deadline = Date.now() + START_TIMEOUT_MS;
    while (!(await this.answers())) {
      if (/Address already in use/.test(this.output)) {
        await this.kill();
        throw new PortTaken(`PowerDNS could not bind its ports: ${this.output}`);
      }
      if (gone || Date.now() > deadline) {
        const why = gone ? `exited (${child.exitCode ?? child.signalCode})` : `did not answer within ${START_TIMEOUT_MS} ms`;
        await this.kill();
        throw new Error(`PowerDNS ${why}: ${this.output}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  async kill(): Promise<void> {
    const child = this.child;
    if (!child) return;
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await this.exited;
    this.child = null;
  }

  private async answers(): Promise<boolean> {
    try {
      const res = await fetch(`${this.apiUrl}/api/v1/servers/localhost`, {
        headers: { 'X-API-Key': this.apiKey },
        signal: AbortSignal.timeout(1000),
      });
      await res.arrayBuffer();
      return res.status === 200;
    } catch {
      return false;
    }
  }
}

/** `dig @127.0.0.1 -p <port> +short +norecurse <name> <type>`: the answer's lines (empty: no records). */
export function dig(port: number, name: string, type: string): Promise<string[]> {
  return runDig(['@127.0.0.1', '-p', String(port), '+short', '+norecurse', '+time=2', '+tries=1', name, type]);
}

/** `dig -x <address>` on the server: the PTR names. */
export function digPtr(port: number, address: string): Promise<string[]> {
  return runDig(['@127.0.0.1', '-p', String(port), '+short', '+norecurse', '+time=2', '+tries=1', '-x', address]);
}

function runDig(args: string[]): Promise<string[]> {
  return new Promise((resolve, reject) => {
    execFile('dig', args, { encoding: 'utf8' }, (err, stdout, stderr) => {
      if (err) return reject(new Error(`dig ${args.join(' ')} failed: ${stderr || stdout || err.message}`));
      const lines = stdout.split('\n').filter((line) => line.trim() !== '');
      // +short prints failures (no server, timeout) as ';;' comments rather than failing.
      if (lines.some((line) => line.startsWith(';;'))) return reject(new Error(`dig ${args.join(' ')}: ${lines.join('\n')}`));
      resolve(lines);
    });
  });
}

/** A port free on 127.0.0.1 for both UDP and TCP (PowerDNS binds both on local-port). */
async function freeUdpAndTcpPort(): Promise<number> {
  for (let i = 0; i < 20; i++) {
    const port = await freePort();
    if (await udpFree(port)) return port;
  }
  throw new Error('no port free for both UDP and TCP on 127.0.0.1');
}

function udpFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createSocket('udp4');
    socket.once('error', () => resolve(false));
    socket.bind(port, '127.0.0.1', () => socket.close(() => resolve(true)));
  });
}
