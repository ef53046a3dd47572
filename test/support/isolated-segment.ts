import { execFile, execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';

export interface CommandResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface SegmentAddresses {
  /** The namespace end's addresses with their prefix: the pools' gateways (`203.0.113.1/24`, `2001:db8::1/64`). */
  gateways: string[];
  /** More addresses of the namespace, on its loopback (`198.51.100.53/32`): a resolver's, reached through the gateway. */
  local?: string[];
}

const NAME = /^h(br|ns|vb|vn)-(\d+)-[0-9a-f]{2}$/;

/**
 * A network segment for bridged guests that reaches nothing but itself (issue 52): a bridge with no
 * address and no uplink in the root namespace, and a network namespace of the test's own joined to
 * it by a veth pair whose namespace end holds the pools' gateway addresses. Clients (ssh, curl,
 * ping) run inside the namespace through `run`; the root namespace routes nothing for the guests,
 * so nothing leaves the machine. Names carry the test process's pid: `removeLeftovers` removes
 * those of processes that are gone (a killed run), never another live run's.
 */
export class IsolatedSegment {
  readonly bridge: string;
  readonly netns: string;
  private readonly vethBridge: string;
  private readonly vethNs: string;
  private removed = false;

  private constructor(tag: string) {
    this.bridge = `hbr-${tag}`;
    this.netns = `hns-${tag}`;
    this.vethBridge = `hvb-${tag}`;
    this.vethNs = `hvn-${tag}`;
  }

  /** Makes the segment; what is made before a step fails is removed again. */
  static create(addresses: SegmentAddresses): IsolatedSegment {
    removeLeftovers();
    const segment = new IsolatedSegment(`${process.pid}-${randomBytes(1).toString('hex')}`);
    try {
      segment.build(addresses);
    } catch (err) {
      segment.remove();
      throw err;
    }
    return segment;
  }

  /** The prefix that runs a command inside the namespace (for helpers that spawn a client themselves). */
  get exec(): string[] {
    return ['ip', 'netns', 'exec', this.netns];
  }

  /** `argv` inside the namespace, no shell; never throws, `timeoutMs` at most. */
  run(argv: string[], timeoutMs = 30_000): Promise<CommandResult> {
    const [file, ...args] = [...this.exec, ...argv];
    return new Promise((resolve) => {
      execFile(file, args, { timeout: timeoutMs }, (err, stdout, stderr) =>
        resolve({ code: err ? ((err as { code?: number }).code ?? null) : 0, stdout: stdout.trim(), stderr: stderr.trim() }),
      );
    });
  }

  /** Removes namespace, veth pair and bridge, whatever of them exists; safe to call twice. */
  remove(): void {
    if (this.removed) return;
    removeParts(this.netns, [this.vethBridge, this.bridge]);
    this.removed = true;
  }

  private build({ gateways, local = [] }: SegmentAddresses): void {
    // No IPv6 on the root namespace's side either: not even a link-local address there.
    ip('link', 'add', 'name', this.bridge, 'type', 'bridge');
    noIpv6(this.bridge);
    ip('netns', 'add', this.netns);
    // No duplicate address detection in the namespace (its link-local address included): every address answers at once.
    for (const conf of ['all', 'default']) {
      ip('netns', 'exec', this.netns, 'sh', '-c', `echo 0 > /proc/sys/net/ipv6/conf/${conf}/accept_dad`);
    }
    ip('link', 'add', 'name', this.vethBridge, 'type', 'veth', 'peer', 'name', this.vethNs, 'netns', this.netns);
    noIpv6(this.vethBridge);
    ip('link', 'set', this.vethBridge, 'master', this.bridge);
    ip('link', 'set', this.vethBridge, 'up');
    ip('link', 'set', this.bridge, 'up');
    const inNs = (...args: string[]) => ip('-n', this.netns, ...args);
    inNs('link', 'set', 'lo', 'up');
    for (const address of gateways) inNs('address', 'add', address, 'dev', this.vethNs);
    for (const address of local) inNs('address', 'add', address, 'dev', 'lo');
    inNs('link', 'set', this.vethNs, 'up');
  }
}

/** Segments of test processes that are gone: a run that was killed before its afterAll. */
export function removeLeftovers(): void {
  const alive = (pid: number) => {
    try {
      process.kill(pid, 0);
      return true;
    } catch (err) {
      return (err as NodeJS.ErrnoException).code !== 'ESRCH';
    }
  };
  const dead = (name: string) => {
    const match = NAME.exec(name);
    return match !== null && !alive(Number(match[2]));
  };
  const namespaces = execFileSync('ip', ['netns', 'list'], { encoding: 'utf8' })
    .split('\n')
    .map((line) => line.split(' ')[0]);
  const links = (JSON.parse(execFileSync('ip', ['-j', 'link', 'show'], { encoding: 'utf8' })) as { ifname: string }[]).map((l) => l.ifname);
  for (const netns of namespaces.filter(dead)) removeParts(netns, []);
  // A veth end first (it may be gone with its namespace), then the bridges.
  for (const link of links.filter(dead).sort((a, b) => (a.startsWith('hbr-') ? 1 : 0) - (b.startsWith('hbr-') ? 1 : 0))) {
    removeParts(null, [link]);
  }
}

function removeParts(netns: string | null, links: string[]): void {
  if (netns && listed(['netns', 'list'], netns)) ip('netns', 'delete', netns);
  for (const link of links) {
    // A veth end goes with its namespace's other end, a moment after the namespace is deleted.
    if (!listed(['-o', 'link', 'show'], link)) continue;
    try {
      ip('link', 'delete', link);
    } catch (err) {
      if (!/Cannot find device/.test(String((err as { stderr?: Buffer }).stderr))) throw err;
    }
  }
}

function listed(args: string[], name: string): boolean {
  const out = execFileSync('ip', args, { encoding: 'utf8' });
  return out.split('\n').some((line) => line.split(/[ :@]+/).includes(name));
}

function ip(...args: string[]): void {
  execFileSync('ip', args, { stdio: ['ignore', 'ignore', 'pipe'] });
}

function noIpv6(link: string): void {
  writeFileSync(`/proc/sys/net/ipv6/conf/${link}/disable_ipv6`, '1');
}
