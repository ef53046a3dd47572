import { randomUUID } from 'node:crypto';
import { agentPing, BOOT_MS } from '../support/guest';
import { GuestSuite } from '../support/guest-suite';
import { libvirtCompute } from '../support/hosts';
import { IsolatedSegment } from '../support/isolated-segment';
import { libvirtTestsEnabled, virsh } from '../support/libvirt';
import { waitForOrFail } from '../support/wait-for';

/**
 * Bridge mode proven by traffic (issue 52): the app in NETWORK_MODE=bridge on a segment of the
 * test's own (isolated-segment.ts: a bridge with no address and no uplink, a namespace holding the
 * pools' gateways), a Debian test guest provisioned by the operator's service:provision, and every
 * client (ssh, curl, ping) inside that namespace, so nothing leaves the machine. The addresses the
 * API shows are the ones that answer; the guest holds the seed's addresses, routes and resolvers.
 * One guest, on PostgreSQL and on PGlite.
 */
const enabled = libvirtTestsEnabled();

const GATEWAY4 = '203.0.113.1';
const GATEWAY6 = '2001:db8::1';
// Resolvers outside the pools, on the namespace's loopback: the guest reaches them through its default routes.
const DNS = ['198.51.100.53', '2001:db8:53::53'];

/** An ICMP echo from the guest (the test image has python3, not ping): exit 0 once the address answers. */
const ICMP_ECHO = `import os, socket, struct, sys, time
address = sys.argv[1]
v6 = ':' in address
s = socket.socket(socket.AF_INET6 if v6 else socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMPV6 if v6 else socket.IPPROTO_ICMP)
s.settimeout(5)
ident = os.getpid() & 0xffff
def checksum(b):
    b += b'\\0' * (len(b) % 2)
    n = sum(struct.unpack('!%dH' % (len(b) // 2), b))
    n = (n >> 16) + (n & 0xffff)
    return ~(n + (n >> 16)) & 0xffff
packet = struct.pack('!BBHHH', 128 if v6 else 8, 0, 0, ident, 1) + b'issue-52'
if not v6:
    packet = packet[:2] + struct.pack('!H', checksum(packet)) + packet[4:]
s.sendto(packet, (address, 0))
deadline = time.time() + 5
while time.time() < deadline:
    data, source = s.recvfrom(2048)
    if not v6:
        data = data[(data[0] & 15) * 4:]
    if data[0] == (129 if v6 else 0) and struct.unpack('!H', data[4:6])[0] == ident:
        print('echo reply from', source[0])
        sys.exit(0)
sys.exit(1)
`;

/** The guest's interfaces and addresses as qemu-guest-agent reports them, or why not. */
async function agentInterfaces(domain: string): Promise<string> {
  if (!(await agentPing(domain)).includes('"return"')) return 'no answer from qemu-guest-agent';
  return virsh('qemu-agent-command', domain, '{"execute":"guest-network-get-interfaces"}').catch((err: Error) => err.message);
}

interface BridgedInstance {
  ipv4: string;
  ipv6: string;
  ssh: { host: string; port: number };
}

(enabled ? describe : describe.skip)('A VPS in bridge mode, reached from an isolated segment (libvirt, real cloud image)', () => {
  const g = new GuestSuite('bridge');
  let segment: IsolatedSegment | undefined;
  let instance: BridgedInstance;
  const page = `issue-52-${randomUUID()}`;

  beforeAll(async () => {
    segment = IsolatedSegment.create({ gateways: [`${GATEWAY4}/24`, `${GATEWAY6}/64`], local: [`${DNS[0]}/32`, `${DNS[1]}/128`] });
    g.sshVia = segment.exec;
    await g.start(
      libvirtCompute({
        COMPUTE_STOP_TIMEOUT_SECONDS: '60',
        NETWORK_MODE: 'bridge',
        NETWORK_BRIDGE: segment.bridge,
        NETWORK_IPV4_POOL: `203.0.113.0/24@${GATEWAY4}`,
        NETWORK_IPV6_POOL: `2001:db8::/64@${GATEWAY6}`,
        NETWORK_DNS: DNS.join(','),
      }),
    );
  }, BOOT_MS);

  afterAll(async () => {
    try {
      await g.stop();
    } finally {
      segment?.remove();
    }
  }, BOOT_MS);

  const inSegment = (argv: string[]) => segment!.run(argv);
  /** `argv` in the namespace until it exits 0 (the guest boots; its IPv6 address passes DAD), at most a minute. */
  const untilRuns = (argv: string[]) =>
    waitForOrFail(
      () => inSegment(argv),
      (res) => res.code === 0,
      60_000,
      (res) => `${argv.join(' ')} kept failing: ${res.code} ${res.stderr}`,
    );
  const curl = (url: string) => untilRuns(['curl', '-gsS', '--noproxy', '*', '--max-time', '10', url]);
  const guest = async (command: string, input?: string) => {
    const res = await g.ssh(command, input);
    expect({ command, code: res.code, stderr: res.stderr }).toEqual({ command, code: 0, stderr: '' });
    return res.stdout;
  };

  it(
    'provisions on the bridge with addresses of the pools in canonical form, and root logs in over SSH to the IPv4 address',
    async () => {
      const vps = await g.provision();
      instance = (vps as unknown as { instance: BridgedInstance }).instance;
      expect(instance.ipv4).toMatch(/^203\.0\.113\.\d{1,3}$/);
      expect(instance.ipv4).not.toBe(GATEWAY4);
      expect(instance.ipv6).toMatch(/^2001:db8::[1-9a-f][0-9a-f]{0,3}$/);
      expect(new URL(`http://[${instance.ipv6}]/`).hostname).toBe(`[${instance.ipv6}]`);
      expect(instance.ssh).toEqual({ host: instance.ipv4, port: 22 });
      const shown = (await g.t.get(`/api/services/${vps.id}`, g.owner.bearer).expect(200)).body.instance;
      expect(shown).toMatchObject({ ipv4: instance.ipv4, ipv6: instance.ipv6, ssh: instance.ssh });
      expect(await virsh('dumpxml', `svc-${vps.id}`)).toContain(`<source bridge='${segment!.bridge}'/>`);

      // cloud-init restarts sshd late in the first boot: wait for it before relying on SSH.
      await g.sshWhenUp('cloud-init status --wait > /dev/null || true').catch(async (err: Error) => {
        // What the guest itself holds, when it answers at all: a guest that booted without its addresses, or one still booting.
        const seen = await agentInterfaces(`svc-${vps.id}`);
        throw new Error(`${err.message}; the guest agent sees: ${seen}`);
      });
      expect(await guest('whoami')).toBe('root');
    },
    BOOT_MS * 2,
  );

  it(
    "holds the seed's addresses, default routes through the pools' gateways, and the seed's resolvers in /etc/resolv.conf",
    async () => {
      const addresses = await guest('ip -o address show dev eth0');
      expect(addresses).toContain(`inet ${instance.ipv4}/24 `);
      expect(addresses).toContain(`inet6 ${instance.ipv6}/64 `);
      expect(await guest('ip -4 route show default')).toMatch(new RegExp(`^default via ${GATEWAY4.replace(/\./g, '\\.')} dev eth0`));
      expect(await guest('ip -6 route show default')).toMatch(new RegExp(`^default via ${GATEWAY6} dev eth0`));
      // The image uses ifupdown without resolvconf: the seed's bootcmd wrote the file (issue 52).
      expect((await guest('grep ^nameserver /etc/resolv.conf')).split('\n')).toEqual(DNS.map((server) => `nameserver ${server}`));
    },
    BOOT_MS,
  );

  it(
    'serves a web page from the guest to the namespace over IPv4 and over IPv6',
    async () => {
      await guest(`mkdir -p /srv/www && echo ${page} > /srv/www/index.html`);
      await guest('systemd-run --quiet --unit=issue-52-web python3 -m http.server 80 --bind :: --directory /srv/www');
      expect((await curl(`http://${instance.ipv4}/`)).stdout).toBe(page);
      expect((await curl(`http://[${instance.ipv6}]/`)).stdout).toBe(page);
    },
    BOOT_MS,
  );

  it(
    'answers ping from the namespace, and reaches the gateways and, through them, the resolvers, over IPv4 and IPv6',
    async () => {
      for (const address of [instance.ipv4, instance.ipv6]) await untilRuns(['ping', '-c', '1', '-W', '5', address]);
      for (const address of [GATEWAY4, GATEWAY6, ...DNS]) {
        expect(await guest(`python3 - ${address}`, ICMP_ECHO)).toBe(`echo reply from ${address}`);
      }
    },
    BOOT_MS,
  );
});
