import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { NetworkAllocator } from '../../libs/vps/src/instances/network/network-allocator';
import { TransactionRunner } from '@app/core';
import { createAccount, TestAccount } from '../factories/accounts';
import { uploadSshKey } from '../factories/images';
import { addTestImage, BOOT_MS, hostKeyAt, makeKeyPair, pacedTry, sshAsRoot, untilSshUp } from '../support/guest';
import { runHostctl } from '../support/hostctl';
import { guestCompute } from '../support/hosts';
import { domainNames, guestSuiteInThisPass, removeDomain, virsh } from '../support/libvirt';
import { runCliIn } from '../support/run-cli-in-app';
import { startTestApp, startTwoApps, TestApp } from '../support/test-app';
import { TEST_DATABASE_URL } from '../support/test-env';
import { waitFor, waitForOrFail } from '../support/wait-for';

/**
 * A VPS a customer logs into, on the local qemu:///system with a real cloud image (Debian 12 from
 * scripts/build-test-image.sh) whose cloud-init reads our seed. One guest boots, under TCG, for the
 * whole file: provision, reboot, rebuild, terminate; in CI once, in the PGlite pass (guestSuiteInThisPass).
 * The network leases' race between two API processes: PostgreSQL only.
 */
const onPostgres = TEST_DATABASE_URL !== undefined;
const enabled = guestSuiteInThisPass();

const POOL = 'default';
const compute = guestCompute('23000-23999');

(enabled ? describe : describe.skip)('A VPS a customer can log into (libvirt, real cloud image)', () => {
  let t: TestApp;
  let owner: TestAccount;
  let dir: string;
  let imageSlug: string;
  let keyIds: [string, string];
  let vps: { id: string; name: string; instance: { ssh: { host: string; port: number } } };
  const key = (n: 1 | 2 | 3) => join(dir, `key${n}`);

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'vps-keys-'));
    for (const n of [1, 2, 3] as const) makeKeyPair(key(n), `key${n}`);
    t = await startTestApp(compute);
    owner = await createAccount(t);
    keyIds = [
      await uploadSshKey(t, owner.bearer, readFileSync(`${key(1)}.pub`, 'utf8')),
      await uploadSshKey(t, owner.bearer, readFileSync(`${key(2)}.pub`, 'utf8')),
    ];
    imageSlug = `debian-12-test-${randomUUID().slice(0, 8)}`;
    // At warn, so a volume looked for and not there yet (it is new) is not reported as a failure.
    const added = await addTestImage(t.app, imageSlug);
    expect(added.stderr).toBe('');
    expect(added.lines[0]).toMatchObject({ slug: imageSlug, osFamily: 'debian', osVersion: '12', status: 'available' });
  }, BOOT_MS);

  afterAll(async () => {
    if (vps) await removeDomain(`svc-${vps.id}`);
    if (imageSlug) await runCliIn(t.app, ['image:remove', '--slug', imageSlug]);
    await t?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const ssh = (n: 1 | 2 | 3, command: string) => sshAsRoot(vps.instance.ssh, key(n), command);

  /** sshd answers once the guest has booted and cloud-init wrote the keys (it may restart sshd once: retry). */
  const sshWhenUp = (n: 1 | 2, command: string) =>
    untilSshUp(
      () => ssh(n, command),
      (res) => `ssh with key${n} never worked: ${res.code} ${res.stderr}`,
    );

  /** A key's answer from sshd itself: a connection that sshd's restart (cloud-init) reset is tried again. */
  const sshdAnswer = (n: 1 | 2 | 3, command: string) =>
    waitForOrFail(
      () => pacedTry(() => ssh(n, command)),
      (res) => res.code === 0 || !/kex_exchange_identification|Connection (reset|refused|closed)|timed out/i.test(res.stderr),
      BOOT_MS,
      (res) => `sshd never answered key${n}: ${res.code} ${res.stderr}`,
    );

  async function settle(actionId: string): Promise<{ status: string; error: unknown }> {
    return waitFor(
      async () => (await t.get(`/api/services/${vps.id}/instance/actions/${actionId}`, owner.bearer).expect(200)).body,
      (action) => action.status !== 'running',
      BOOT_MS,
    );
  }

  /** The user-data actually in the pool, from the seed volume, checked by cloud-init's own schema. */
  async function seedUserData(): Promise<string> {
    const iso = join(dir, 'seed.iso');
    await virsh('vol-download', '--pool', POOL, `svc-${vps.id}-seed.iso`, iso);
    const userData = execFileSync('isoinfo', ['-i', iso, '-R', '-x', '/user-data'], { encoding: 'utf8' });
    const file = join(dir, 'user-data');
    writeFileSync(file, userData);
    expect(execFileSync('cloud-init', ['schema', '--config-file', file], { encoding: 'utf8' })).toMatch(/Valid cloud-config/);
    return userData;
  }

  it(
    'provisions from the image with two keys: both log in as root and the host name is the service’s; a key the account lacks is refused',
    async () => {
      const res = await runCliIn(
        t.app,
        ['service:provision', '--email', owner.email, '--type', 'vps', '--product', 'vps-xs', '--name', 'Web 01'].concat([
          '--image',
          imageSlug,
          '--ssh-keys',
          keyIds.join(','),
        ]),
      );
      expect(res.stderr).toBe('');
      [vps] = res.lines;
      expect(vps.instance).toMatchObject({ powerState: 'running', ipv4: null, ssh: { host: '127.0.0.1', port: expect.any(Number) } });
      const port = vps.instance.ssh.port;
      expect(port).toBeGreaterThanOrEqual(23000);
      expect((await t.get(`/api/services/${vps.id}`, owner.bearer).expect(200)).body.instance.ssh).toMatchObject({
        host: '127.0.0.1',
        port,
      });
      const volumes = await virsh('vol-list', POOL);
      expect(volumes).toContain(`svc-${vps.id}-root.qcow2`);
      expect(volumes).toContain(`svc-${vps.id}-seed.iso`);
      expect(await virsh('vol-dumpxml', '--pool', POOL, `svc-${vps.id}-root.qcow2`)).toMatch(
        /<capacity unit='bytes'>26843545600<\/capacity>/,
      );
      expect(await virsh('dumpxml', `svc-${vps.id}`)).toContain(`restrict=on,hostfwd=tcp:127.0.0.1:${port}-:22`);
      const userData = await seedUserData();
      expect(userData).toContain(readFileSync(`${key(1)}.pub`, 'utf8').trim());
      expect(userData).toContain(readFileSync(`${key(2)}.pub`, 'utf8').trim());

      expect((await sshWhenUp(1, 'hostname')).stdout).toBe('web-01');
      expect((await sshWhenUp(2, 'whoami')).stdout).toBe('root');
      // sshd answers with the host key the service shows (issue 58): the API made it and the seed carried it.
      const shown = (await t.get(`/api/services/${vps.id}`, owner.bearer).expect(200)).body.instance.ssh;
      expect(shown.hostKeys).toEqual([
        expect.objectContaining({ type: 'ssh-ed25519', knownHosts: `[127.0.0.1]:${port} ${shown.hostKeys[0].publicKey}` }),
      ]);
      expect(await hostKeyAt(shown)).toBe(shown.hostKeys[0].publicKey);
      expect(userData).toContain(`ed25519_public: "${shown.hostKeys[0].publicKey}"`);
      const foreign = await sshdAnswer(3, 'hostname');
      expect(foreign.code).toBe(255);
      expect(foreign.stderr).toMatch(/Permission denied/);
    },
    BOOT_MS * 2,
  );

  it(
    'keeps the disk across a reboot through the API',
    async () => {
      // cloud-init may restart sshd once after the first logins: each command is retried until it runs.
      expect((await sshWhenUp(1, 'echo kept > /root/marker && sync && cat /root/marker')).stdout).toBe('kept');
      const bootId = (await sshWhenUp(1, 'cat /proc/sys/kernel/random/boot_id')).stdout;
      expect(bootId).toMatch(/^[0-9a-f-]{36}$/);
      const reboot = await request(t.http).post(`/api/services/${vps.id}/instance/reboot`).set('Authorization', owner.bearer).expect(202);
      expect(await settle(reboot.body.id)).toMatchObject({ status: 'succeeded', error: null });
      const after = await sshWhenUp(1, 'cat /proc/sys/kernel/random/boot_id; cat /root/marker');
      const [newBootId, marker] = after.stdout.split('\n');
      expect(newBootId).toMatch(/^[0-9a-f-]{36}$/);
      expect(newBootId).not.toBe(bootId);
      expect(marker).toBe('kept');
    },
    BOOT_MS * 2,
  );

  it(
    'rebuilds with only the second key: a fresh disk, a new instance-id, the first key refused',
    async () => {
      const before = (await sshWhenUp(2, 'cat /var/lib/cloud/data/instance-id')).stdout;
      expect(before).toBe(`iid-${vps.id}`);
      const hostKey = await hostKeyAt(vps.instance.ssh);
      expect(hostKey).toMatch(/^ssh-ed25519 /);
      const rebuild = await request(t.http)
        .post(`/api/services/${vps.id}/instance/rebuild`)
        .set('Authorization', owner.bearer)
        .send({ image: imageSlug, sshKeyIds: [keyIds[1]] })
        .expect(202);
      expect(await settle(rebuild.body.id)).toMatchObject({ status: 'succeeded', error: null });
      const userData = await seedUserData();
      expect(userData).not.toContain(readFileSync(`${key(1)}.pub`, 'utf8').trim());

      const after = await sshWhenUp(
        2,
        'cat /var/lib/cloud/data/instance-id; test -e /root/marker && echo still-there || echo gone; hostname',
      );
      expect(after.stdout.split('\n')).toEqual([`iid-${rebuild.body.id}`, 'gone', 'web-01']);
      // The same host key after the rebuild: a client that checked it before connects without a warning.
      expect(await hostKeyAt(vps.instance.ssh)).toBe(hostKey);
      const home = mkdtempSync(join(dir, 'home-'));
      const url = `http://127.0.0.1:${(t.http.address() as AddressInfo).port}`;
      const viaHostctl = await runHostctl(['ssh', 'Web 01', '-i', key(2), '--', 'hostname'], {
        home,
        env: { HOSTCTL_URL: url, HOSTCTL_TOKEN: owner.apiKey },
      });
      expect({ code: viaHostctl.code, stdout: viaHostctl.stdout.trim() }).toEqual({ code: 0, stdout: 'web-01' });
      expect(readFileSync(join(home, 'config', 'hostctl', 'known_hosts'), 'utf8')).toBe(
        `[127.0.0.1]:${vps.instance.ssh.port} ${hostKey}\n`,
      );
      const first = await sshdAnswer(1, 'hostname');
      expect(first.code).toBe(255);
      expect(first.stderr).toMatch(/Permission denied/);
    },
    BOOT_MS * 2,
  );

  it('terminating removes the domain, the disk and the seed from the pool, and frees the port', async () => {
    const { port } = vps.instance.ssh;
    const res = await runCliIn(t.app, ['service:set-status', '--id', vps.id, '--status', 'terminated']);
    expect(res.code).toBe(0);
    expect(await domainNames()).not.toContain(`svc-${vps.id}`);
    expect(await virsh('vol-list', POOL)).not.toContain(`svc-${vps.id}`);
    expect(await t.db.query('SELECT value FROM network_leases WHERE service_id = $1', [vps.id])).toEqual([]);
    // Nothing listens on it any more: it can be bound again.
    await new Promise<void>((resolve, reject) => {
      const server = createServer().once('error', reject);
      server.listen(port, '127.0.0.1', () => server.close(() => resolve()));
    });
  });
});

(onPostgres ? describe : describe.skip)('Network leases across API processes (PostgreSQL)', () => {
  it('gives 6 VPSes allocated at once by two processes 6 distinct ports, and refuses a 7th when the range is used up', async () => {
    const apps = await startTwoApps({ NETWORK_SSH_PORTS: '24000-24005' });
    try {
      const ids = Array.from({ length: 6 }, () => randomUUID());
      const allocate = (app: TestApp, id: string) =>
        app.app.get(TransactionRunner).run((m) => app.app.get(NetworkAllocator).allocate(m, id, 'eu-central'));
      const leases = await Promise.all(ids.map((id, i) => allocate(i % 2 ? apps.a : apps.b, id)));
      const ports = leases.map((lease) => (lease.mode === 'user' ? lease.sshPort : null));
      expect(new Set(ports).size).toBe(6);
      expect([...ports].sort()).toEqual([24000, 24001, 24002, 24003, 24004, 24005]);
      await expect(allocate(apps.a, randomUUID())).rejects.toMatchObject({ code: 'quota_exceeded' });
      await apps.a.db.query('DELETE FROM network_leases WHERE service_id = ANY($1::uuid[])', [ids]);
    } finally {
      await apps.close();
    }
  });

  it('leases bridge addresses once each, skipping the gateway, with an IPv6 address beside each, and frees them on release', async () => {
    const apps = await startTwoApps({
      NETWORK_MODE: 'bridge',
      NETWORK_IPV4_POOL: '192.0.2.0/29',
      NETWORK_IPV6_POOL: '2001:db8:77::/64',
      NETWORK_DNS: '192.0.2.53',
    });
    try {
      const ids = Array.from({ length: 5 }, () => randomUUID());
      const allocate = (app: TestApp, id: string) =>
        app.app.get(TransactionRunner).run((m) => app.app.get(NetworkAllocator).allocate(m, id, 'eu-central'));
      const leases = await Promise.all(ids.map((id, i) => allocate(i % 2 ? apps.a : apps.b, id)));
      const v4 = leases.map((lease) => (lease.mode === 'bridge' ? lease.ipv4.address : null));
      expect([...v4].sort()).toEqual(['192.0.2.2', '192.0.2.3', '192.0.2.4', '192.0.2.5', '192.0.2.6']);
      expect(leases[0]).toMatchObject({
        mode: 'bridge',
        bridge: 'br0',
        mac: expect.stringMatching(/^52:54:00:/),
        ipv4: { prefix: 29, gateway: '192.0.2.1' },
        ipv6: { address: expect.stringMatching(/^2001:db8:77::[1-9a-f][0-9a-f]*$/), prefix: 64, gateway: '2001:db8:77::1' },
        dns: ['192.0.2.53'],
      });
      const v6 = leases.map((lease) => (lease.mode === 'bridge' ? lease.ipv6?.address : null));
      expect(new Set(v6).size).toBe(5);
      await expect(allocate(apps.a, randomUUID())).rejects.toMatchObject({ code: 'quota_exceeded' });
      await apps.b.app.get(TransactionRunner).run((m) => apps.b.app.get(NetworkAllocator).release(m, ids[0]));
      const again = await allocate(apps.a, randomUUID());
      expect(again.mode === 'bridge' && again.ipv4.address).toBe(v4[0]);
      await apps.a.db.query(`DELETE FROM network_leases WHERE scope IN ('ipv4', 'ipv6')`);
    } finally {
      await apps.close();
    }
  });
});
