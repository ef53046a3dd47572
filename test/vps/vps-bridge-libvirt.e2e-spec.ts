import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { VolumeBackend } from '@app/vps';
import { VolumePurgeJob } from '../../libs/vps/src/volumes/volume-purge.job';
import { createAccount } from '../factories/accounts';
import { cephMonHost, cephTestsEnabled, cephTool } from '../support/ceph';
import { agentPing, BOOT_MS, hostKeyAt } from '../support/guest';
import { GuestSuite } from '../support/guest-suite';
import { libvirtCompute } from '../support/hosts';
import { IsolatedSegment } from '../support/isolated-segment';
import { digPtr, PowerDns, powerDnsAvailable, powerDnsEnv, startPowerDns } from '../support/powerdns';
import { guestSuiteInThisPass, removeVolume, virsh } from '../support/libvirt';
import { runCliIn } from '../support/run-cli-in-app';
import { TEST_DATABASE_URL } from '../support/test-env';
import { waitForOrFail } from '../support/wait-for';
import { hostnameOf } from '../../libs/vps/src/instances/guest-setup';

/**
 * Bridge mode proven by traffic (issue 52): the app in NETWORK_MODE=bridge on a segment of the
 * test's own (isolated-segment.ts: a bridge with no address and no uplink, a namespace holding the
 * pools' gateways), a Debian test guest provisioned by the operator's service:provision, and every
 * client (ssh, curl, ping) inside that namespace, so nothing leaves the machine. The addresses the
 * API shows are the ones that answer; the guest holds the seed's addresses, routes and resolvers.
 * Then a volume (issue 53) moves from the first guest to a second with its data. Two guests, on
 * PostgreSQL (volumes on the one-node Ceph's RBD) and on PGlite (volumes in the host's libvirt pool).
 */
const enabled = guestSuiteInThisPass();
/** The PostgreSQL pass puts volumes on RBD (where Ceph runs), the PGlite pass in the local pool: both backends, one suite. */
// RBD where it runs in CI (the PGlite pass) and on PostgreSQL; the local pool on PGlite outside CI (volumes-libvirt covers both on a tiny guest).
const VOLUMES_ON_RBD = (TEST_DATABASE_URL !== undefined || !!process.env.CI) && cephTestsEnabled();
const RBD_POOL = `bridge-volumes-${randomUUID().slice(0, 8)}`;

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

interface Firewall {
  id: string;
  appliedTo: { serviceId: string; status: string }[];
}

/** A rule from anywhere, over IPv4 and IPv6. */
const fromAnywhere = (protocol: 'tcp' | 'icmp', port?: string) => ({
  direction: 'in',
  protocol,
  ...(port && { port }),
  addresses: ['0.0.0.0/0', '::/0'],
});

interface BridgedInstance {
  ipv4: string;
  ipv6: string;
  ssh: { host: string; port: number; hostKeys: { publicKey: string; knownHosts: string }[] };
}

(enabled ? describe : describe.skip)('A VPS in bridge mode, reached from an isolated segment (libvirt, real cloud image)', () => {
  const g = new GuestSuite('bridge');
  let segment: IsolatedSegment | undefined;
  let instance: BridgedInstance;
  let firewall: Firewall | undefined;
  let second: { id: string; instance: BridgedInstance } | undefined;
  let volumeId: string | undefined;
  let pdns: PowerDns | undefined;
  const page = `issue-52-${randomUUID()}`;

  beforeAll(async () => {
    if (powerDnsAvailable()) pdns = await startPowerDns();
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
        BACKUP_TERMINATED_GRACE_HOURS: '0',
        ...(pdns && { ...powerDnsEnv(pdns), DNS_DEFAULT_PTR_DOMAIN: 'vps.example.net' }),
        ...(VOLUMES_ON_RBD ? { VOLUME_BACKEND: 'rbd', CEPH_MON_HOST: cephMonHost(), VOLUMES_RBD_POOL: RBD_POOL } : {}),
      }),
    );
  }, BOOT_MS);

  afterAll(async () => {
    try {
      await g.stop();
    } finally {
      // A firewall's filter stays on the host after its last VPS (docs/operations/real-vpses.md).
      if (firewall) await virsh('nwfilter-undefine', `hosting-fw-${firewall.id}`).catch(() => undefined);
      if (volumeId && !VOLUMES_ON_RBD) await removeVolume('default', `vol-${volumeId}`);
      if (VOLUMES_ON_RBD)
        await cephTool('ceph', 'osd', 'pool', 'rm', RBD_POOL, RBD_POOL, '--yes-i-really-really-mean-it').catch(() => undefined);
      segment?.remove();
      await pdns?.stop();
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
  /** curl's exit code once: 28 is its timeout (a dropped packet), 7 a refused connection. */
  const curlOnce = async (url: string) => (await inSegment(['curl', '-gsS', '--noproxy', '*', '--max-time', '4', url])).code;
  const pingOnce = async (address: string) => (await inSegment(['ping', '-c', '1', '-W', '3', address])).code;
  const both = (port: number) => [`http://${instance.ipv4}:${port}/`, `http://[${instance.ipv6}]:${port}/`];
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
      expect(instance.ssh).toMatchObject({ host: instance.ipv4, port: 22 });
      // The host key's known_hosts line names the address alone: port 22 takes no [host]:port form.
      expect(instance.ssh.hostKeys).toEqual([
        expect.objectContaining({ knownHosts: `${instance.ipv4} ${instance.ssh.hostKeys[0].publicKey}` }),
      ]);
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
      // Over the bridge too, sshd answers with the key the service shows (issue 58).
      expect(await hostKeyAt(instance.ssh, g.sshVia)).toBe(instance.ssh.hostKeys[0].publicKey);
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

  describe('with cloud firewalls (nwfilter)', () => {
    const api = (method: 'post' | 'patch' | 'delete', path: string) => request(g.t.http)[method](path).set('Authorization', g.owner.bearer);
    /** The firewall once every VPS it is applied to enforces its current rules. */
    const enforced = () =>
      waitForOrFail(
        async () => (await g.t.get(`/api/firewalls/${firewall!.id}`, g.owner.bearer).expect(200)).body as Firewall,
        (f) => f.appliedTo.length > 0 && f.appliedTo.every((a) => a.status === 'applied'),
        60_000,
        (f) => `the firewall was never enforced: ${JSON.stringify(f.appliedTo)}`,
      );
    const apply = async () => {
      const res = await api('post', `/api/firewalls/${firewall!.id}/apply`)
        .send({ serviceIds: [g.vps.id] })
        .expect(200);
      expect(res.body.appliedTo).toEqual([{ serviceId: g.vps.id, status: expect.stringMatching(/^(pending|applied)$/) }]);
      return enforced();
    };
    const webServer = (port: number) =>
      guest(`systemd-run --quiet --unit=issue-52-web-${port} python3 -m http.server ${port} --bind :: --directory /srv/www`);

    it(
      'lets everything through without a firewall: the domain references an empty filter of its own',
      async () => {
        expect(await virsh('dumpxml', `svc-${g.vps.id}`)).toContain(`<filterref filter='hosting-vps-${g.vps.id}'/>`);
        expect(await virsh('nwfilter-dumpxml', `hosting-vps-${g.vps.id}`)).not.toContain('<rule');
        await webServer(8080);
        for (const url of both(8080)) expect((await curl(url)).stdout).toBe(page);
      },
      BOOT_MS,
    );

    it(
      'applied, lets through only what its rules allow (tcp 22 and 80, ping) over IPv4 and IPv6; the guest still reaches out',
      async () => {
        const rules = [fromAnywhere('tcp', '22'), fromAnywhere('tcp', '80'), fromAnywhere('icmp')];
        firewall = (await api('post', '/api/firewalls').send({ name: 'web', rules }).expect(201)).body as Firewall;
        await apply();
        expect(await virsh('nwfilter-dumpxml', `hosting-vps-${g.vps.id}`)).toContain(`<filterref filter='hosting-fw-${firewall.id}'/>`);
        for (const url of both(8080)) expect({ url, code: await curlOnce(url) }).toEqual({ url, code: 28 });
        for (const url of both(80)) expect((await curl(url)).stdout).toBe(page);
        for (const address of [instance.ipv4, instance.ipv6])
          expect({ address, code: await pingOnce(address) }).toEqual({ address, code: 0 });
        expect(await guest('whoami')).toBe('root');
        // Outbound is open without `out` rules, and neighbour discovery passes once the caches are gone on both sides.
        await inSegment(['ip', 'neigh', 'flush', 'all']);
        await guest('ip neigh flush all');
        for (const address of [GATEWAY4, GATEWAY6])
          expect(await guest(`python3 - ${address}`, ICMP_ECHO)).toBe(`echo reply from ${address}`);
        for (const url of both(80)) expect((await curl(url)).stdout).toBe(page);
      },
      BOOT_MS,
    );

    it(
      'changed, is enforced live: 8080 opens and, its icmp rule gone, ping is dropped',
      async () => {
        const rules = [fromAnywhere('tcp', '22'), fromAnywhere('tcp', '80'), fromAnywhere('tcp', '8000-8100')];
        await api('patch', `/api/firewalls/${firewall!.id}`).send({ rules }).expect(200);
        await enforced();
        for (const url of both(8080)) expect((await curl(url)).stdout).toBe(page);
        for (const address of [instance.ipv4, instance.ipv6])
          expect({ address, code: await pingOnce(address) }).toEqual({ address, code: 1 });
      },
      BOOT_MS,
    );

    it(
      'removed, lets everything through again',
      async () => {
        const res = await api('post', `/api/firewalls/${firewall!.id}/remove`)
          .send({ serviceIds: [g.vps.id] })
          .expect(200);
        expect(res.body.appliedTo).toEqual([]);
        for (const address of [instance.ipv4, instance.ipv6]) await untilRuns(['ping', '-c', '1', '-W', '3', address]);
        expect(await virsh('nwfilter-dumpxml', `hosting-vps-${g.vps.id}`)).not.toContain('<rule');
      },
      BOOT_MS,
    );

    it(
      "applied again, is in the machine's persistent definition (what a stop and start boots from), then is deleted",
      async () => {
        await apply();
        for (const address of [instance.ipv4, instance.ipv6])
          expect({ address, code: await pingOnce(address) }).toEqual({ address, code: 1 });
        // Every start defines nothing anew: the persistent definition is what boots, and it names the VPS's filter.
        expect(await virsh('dumpxml', '--inactive', `svc-${g.vps.id}`)).toContain(`<filterref filter='hosting-vps-${g.vps.id}'/>`);
        expect(await virsh('nwfilter-dumpxml', `hosting-vps-${g.vps.id}`)).toContain(`<filterref filter='hosting-fw-${firewall!.id}'/>`);

        await api('post', `/api/firewalls/${firewall!.id}/remove`)
          .send({ serviceIds: [g.vps.id] })
          .expect(200);
        await api('delete', `/api/firewalls/${firewall!.id}`).expect(204);
      },
      BOOT_MS,
    );
  });

  (powerDnsAvailable() ? it : it.skip)(
    'gives its addresses a default PTR, and the one its owner sets, that dig -x answers (PowerDNS)',
    async () => {
      const vps = (await g.t.get(`/api/services/${g.vps.id}`, g.owner.bearer).expect(200)).body;
      const fallback = `${hostnameOf(vps.name, vps.id)}.vps.example.net`;
      for (const ip of [instance.ipv4, instance.ipv6])
        await waitForOrFail(
          () => digPtr(pdns!.dnsPort, ip),
          (answer) => answer.join() === `${fallback}.`,
          30_000,
          (answer) => `dig -x ${ip} answered ${JSON.stringify(answer)}, not ${fallback}.`,
        );
      expect(vps.instance.addresses).toEqual([
        { ip: instance.ipv4, ptr: fallback },
        { ip: instance.ipv6, ptr: fallback },
      ]);
      await request(g.t.http)
        .put(`/api/services/${g.vps.id}/instance/rdns`)
        .set('Authorization', g.owner.bearer)
        .send({ ip: instance.ipv6, ptr: 'www.example.org' })
        .expect(200);
      expect(await digPtr(pdns!.dnsPort, instance.ipv6)).toEqual(['www.example.org.']);
      expect(await digPtr(pdns!.dnsPort, instance.ipv4)).toEqual([`${fallback}.`]);
    },
    BOOT_MS,
  );

  it(
    'lets a second VPS of the account reach the first over IPv4 and IPv6 across the bridge',
    async () => {
      second = (await g.provisionAnother()) as unknown as { id: string; instance: BridgedInstance };
      expect(second.instance.ipv4).not.toBe(instance.ipv4);
      expect((await g.sshInto(second, 'cloud-init status --wait > /dev/null || true')).code).toBe(0);
      // The first VPS's web server (port 80, started above) fetched from inside the second.
      for (const url of [`http://${instance.ipv4}/`, `http://[${instance.ipv6}]/`]) {
        const fetched = await g.sshInto(
          second!,
          `python3 -c 'import sys, urllib.request; print(urllib.request.urlopen(sys.argv[1], timeout=10).read().decode().strip())' '${url}'`,
        );
        expect({ url, code: fetched.code, page: fetched.stdout.trim() }).toEqual({ url, code: 0, page });
      }
    },
    BOOT_MS * 2,
  );

  describe(`with a volume (${VOLUMES_ON_RBD ? 'RBD on Ceph' : "the host's libvirt pool"})`, () => {
    const proof = `issue-53-${randomUUID()}`;
    let device: string;
    const api = (path: string, bearer = g.owner.bearer) => request(g.t.http).post(path).set('Authorization', bearer);
    /** The action of `verb`, once it ended: it must succeed. */
    const act = async (verb: 'attach' | 'detach' | 'resize', body?: object) => {
      const res = await api(`/api/services/${volumeId}/volume/${verb}`).send(body).expect(202);
      const ended = await waitForOrFail(
        async () => (await g.t.get(new URL(res.headers.location).pathname, g.owner.bearer).expect(200)).body,
        (action) => action.status !== 'running',
        120_000,
        (action) => `the ${verb} is still ${action.status}`,
      );
      expect(ended).toMatchObject({ type: verb, status: 'succeeded', error: null });
    };
    const volume = async () => (await g.t.get(`/api/services/${volumeId}`, g.owner.bearer).expect(200)).body.volume;
    /** `command` as root in the second VPS; it must succeed. */
    const inSecond = async (command: string) => {
      const res = await g.sshInto(second!, command);
      expect({ command, code: res.code, stderr: res.stderr }).toEqual({ command, code: 0, stderr: '' });
      return res.stdout;
    };
    /** A shell loop in the guest until `test` holds, at most a minute (udev makes the by-id link once the disk is plugged). */
    const until = (test: string) => `for i in $(seq 60); do ${test} && exit 0; sleep 1; done; exit 1`;

    it(
      'attached live to the first VPS, appears at its stable device path; a filesystem is made and written there, and the volume detached live',
      async () => {
        const made = await runCliIn(g.t.app, [
          'service:provision',
          '--email',
          g.owner.email,
          '--type',
          'volume',
          '--size-gb',
          '10',
          '--name',
          'data',
        ]);
        expect(made.stderr).toBe('');
        volumeId = (made.lines[0] as { id: string }).id;
        await act('attach', { serviceId: g.vps.id });
        ({ device } = await volume());
        expect(device).toMatch(/^\/dev\/disk\/by-id\/virtio-vol-[0-9a-f]{16}$/);
        expect((await g.t.get(`/api/services/${g.vps.id}`, g.owner.bearer).expect(200)).body.instance.volumes).toEqual([
          { id: volumeId, name: 'data', sizeGb: 10, state: 'attached', device },
        ]);
        await guest(until(`test -b ${device}`));
        await guest(`mkfs.ext4 -q -L data ${device} && mkdir -p /mnt/data && mount ${device} /mnt/data`);
        await guest(`echo ${proof} > /mnt/data/proof && sync && umount /mnt/data`);
        await act('detach');
        await guest(until(`! test -e ${device}`));
        expect(await volume()).toMatchObject({ state: 'detached', attachedTo: null, device: null });
        expect(await virsh('dumpxml', `svc-${g.vps.id}`)).not.toContain(`vol-${volumeId}`);
      },
      BOOT_MS * 2,
    );

    it(
      "attached to the second VPS, holds the first's file; grown while attached, the running guest sees the new size",
      async () => {
        await act('attach', { serviceId: second!.id });
        await inSecond(until(`test -b ${device}`));
        await inSecond(`mkdir -p /mnt/data && mount ${device} /mnt/data`);
        expect((await inSecond('cat /mnt/data/proof')).trim()).toBe(proof);
        await act('resize', { sizeGb: 11 });
        await inSecond(until(`test "$(blockdev --getsize64 ${device})" = ${11 * 1024 ** 3}`));
        await inSecond(`resize2fs ${device} > /dev/null 2>&1 && umount /mnt/data`);
        expect(await volume()).toMatchObject({ sizeGb: 11, state: 'attached', attachedTo: second!.id, device });
      },
      BOOT_MS * 2,
    );

    it("is another account's to neither see, attach nor detach (404)", async () => {
      const stranger = await createAccount(g.t);
      await g.t.get(`/api/services/${volumeId}`, stranger.bearer).expect(404);
      await api(`/api/services/${volumeId}/volume/attach`, stranger.bearer).send({ serviceId: g.vps.id }).expect(404);
      await api(`/api/services/${volumeId}/volume/detach`, stranger.bearer).expect(404);
      expect(await volume()).toMatchObject({ state: 'attached', attachedTo: second!.id });
    });

    it(
      'outlives the termination of its VPS, detached with its bytes, which go once the volume itself is terminated',
      async () => {
        const ref = { volumeId: volumeId!, region: (await volume()).region };
        expect((await runCliIn(g.t.app, ['service:set-status', '--id', second!.id, '--status', 'terminated'])).code).toBe(0);
        expect(await volume()).toMatchObject({ state: 'detached', attachedTo: null, device: null });
        const backend = g.t.app.get(VolumeBackend);
        expect(await backend.sizeOf(ref)).toBe(11 * 1024 ** 3);
        expect((await runCliIn(g.t.app, ['service:set-status', '--id', volumeId!, '--status', 'terminated'])).code).toBe(0);
        expect(await g.t.app.get(VolumePurgeJob).run()).toBeGreaterThanOrEqual(1);
        expect(await backend.exists(ref)).toBe(false);
      },
      BOOT_MS,
    );
  });
});
