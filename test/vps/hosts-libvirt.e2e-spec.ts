import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import request from 'supertest';
import { HostHealthJob } from '../../libs/vps/src/fleet/host-health.job';
import { createAccount, TestAccount } from '../factories/accounts';
import { buildTinyGuest, libvirtTestsEnabled, TinyGuest } from '../support/libvirt';
import { hostAddArgs, ownLibvirtdCompute } from '../support/hosts';
import { addOwnHost, domainsOn, emptyOwnLibvirtd, OWN_HOST_SIZE, virshOn } from '../support/own-hosts';
import { OwnLibvirtd, startOwnLibvirtd } from '../support/own-libvirtd';
import { runCliIn } from '../support/run-cli-in-app';
import { startTestApp, TestApp } from '../support/test-app';

/**
 * Many hosts per region on real hypervisors: two libvirtds of the test's own are two hosts of one region.
 * Spread and pack put each VPS's domain on the host they chose, a full region answers
 * no_capacity, and a frozen daemon (SIGSTOP) is marked unreachable: its VPS shows
 * hostReachable: false and power actions answer 503. No guest boots: the VPSes are made
 * stopped (a defined domain, no QEMU process), so the test costs no CPU to speak of.
 */
const enabled = libvirtTestsEnabled();
const SLOW = 240_000;
const REGION = 'eu-west';

(enabled ? describe : describe.skip)('libvirt: many hosts per region (issue 40)', () => {
  let daemons: Record<'a' | 'b', OwnLibvirtd>;
  let tiny: TinyGuest;
  let t: TestApp | undefined;
  let owner: TestAccount;

  const virsh = virshOn;
  const domainsOf = (daemon: OwnLibvirtd) => domainsOn(daemon);
  const cli = (...args: string[]) => runCliIn(t!.app, args);

  /** An app of this policy; the hosts (2 vCPUs, 2 GB, 50 GB: two vps-xs each) are added unless its database has them. */
  async function appWith(policy: 'spread' | 'pack'): Promise<void> {
    await t?.close();
    t = await startTestApp(
      ownLibvirtdCompute(daemons.a.uri(), tiny.template, {
        PLACEMENT_POLICY: policy,
        HOST_UNREACHABLE_GRACE_SECONDS: '0',
        LIBVIRT_KEEPALIVE_SECONDS: '4',
      }),
    );
    owner = await createAccount(t);
    for (const name of ['a', 'b'] as const) {
      const listed = (await cli('host:list')).lines.map((line) => line.name);
      if (!listed.includes(`host-${name}`)) await addOwnHost(t.app, `host-${name}`, REGION, daemons[name]);
    }
  }

  async function provision(count: number): Promise<{ code: number; ids: string[]; stderr: string }> {
    const res = await cli(
      'service:provision',
      '--email',
      owner.email,
      '--type',
      'vps',
      '--product',
      'vps-xs',
      '--region',
      REGION,
      '--power-state',
      'stopped',
      '--count',
      String(count),
    );
    return { code: res.code ?? -1, ids: res.lines.map((line) => line.id as string), stderr: res.stderr };
  }

  const terminate = async (ids: string[]) => {
    for (const id of ids) expect((await cli('service:set-status', '--id', id, '--status', 'terminated')).code).toBe(0);
  };

  beforeAll(async () => {
    tiny = buildTinyGuest();
    daemons = { a: await startOwnLibvirtd(), b: await startOwnLibvirtd() };
    // The pool host:add finds there (the daemons run as nobody: their pools live in their own dirs).
    for (const daemon of Object.values(daemons)) {
      await virsh(daemon, 'pool-define-as', 'default', 'dir', '--target', join(daemon.dir, 'data', 'pool'));
      await virsh(daemon, 'pool-build', 'default');
      await virsh(daemon, 'pool-start', 'default');
    }
  }, SLOW);

  afterAll(async () => {
    if (t) {
      for (const name of ['host-a', 'host-b']) await cli('host:remove', '--name', name);
      await t.close();
    }
    for (const daemon of Object.values(daemons ?? {})) {
      await emptyOwnLibvirtd(daemon);
      await daemon.stop();
    }
    tiny?.remove();
  }, SLOW);

  it(
    'spread puts two VPSes on two hosts; each is defined on its own host and removed from it',
    async () => {
      await appWith('spread');
      const made = await provision(2);
      expect(made.stderr).toBe('');
      const [onA, onB] = [await domainsOf(daemons.a), await domainsOf(daemons.b)];
      expect(onA).toHaveLength(1);
      expect(onB).toHaveLength(1);
      expect([...onA, ...onB].sort()).toEqual(made.ids.map((id) => `svc-${id}`).sort());
      const listed = (await cli('host:list')).lines;
      for (const host of listed) expect(host).toMatchObject({ state: 'enabled', vpsCount: 1, vcpus: { used: 1, free: 1 } });
      await terminate(made.ids);
      expect(await domainsOf(daemons.a)).toEqual([]);
      expect(await domainsOf(daemons.b)).toEqual([]);
    },
    SLOW,
  );

  it(
    'pack fills host-a before host-b; a full region answers no_capacity and nothing is defined',
    async () => {
      await appWith('pack');
      const first = await provision(2);
      expect(first.stderr).toBe('');
      expect(await domainsOf(daemons.a)).toEqual(first.ids.map((id) => `svc-${id}`).sort());
      expect(await domainsOf(daemons.b)).toEqual([]);
      const second = await provision(2);
      expect(await domainsOf(daemons.b)).toEqual(second.ids.map((id) => `svc-${id}`).sort());
      const full = await provision(1);
      expect(full.code).toBe(65);
      expect(full.stderr).toMatch(/^no_capacity: No enabled host of region eu-west has room/);
      expect((await domainsOf(daemons.a)).length + (await domainsOf(daemons.b)).length).toBe(4);
      await terminate([...first.ids, second.ids[1]]);
    },
    SLOW,
  );

  it(
    'a frozen daemon’s host is marked unreachable: its VPS shows hostReachable false and its last state, power actions answer 503',
    async () => {
      const [domain] = await domainsOf(daemons.b);
      const id = domain.slice('svc-'.length);
      // The pack test's second VPS on host-b, stopped, of `owner`.
      const health = t!.app.get(HostHealthJob);
      process.kill(daemons.b.pid(), 'SIGSTOP');
      try {
        await health.check();
        expect(await health.check()).toEqual(['host-b']);
        const shown = await t!.get(`/api/services/${id}`, owner.bearer).expect(200);
        expect(shown.body.instance).toMatchObject({ powerState: 'stopped', hostReachable: false });
        const start = await request(t!.http)
          .post(`/api/services/${id}/instance/start`)
          .set('Authorization', owner.bearer)
          .set('Idempotency-Key', randomUUID())
          .expect(503);
        expect(start.body).toMatchObject({ code: 'hypervisor_unavailable' });
        expect((await cli('host:list')).lines.find((line) => line.name === 'host-b')).toMatchObject({ state: 'unreachable' });
      } finally {
        process.kill(daemons.b.pid(), 'SIGCONT');
      }
      expect(await health.check()).toEqual([]);
      const back = await t!.get(`/api/services/${id}`, owner.bearer).expect(200);
      expect(back.body.instance.hostReachable).toBeUndefined();
      expect((await cli('host:list')).lines.find((line) => line.name === 'host-b')).toMatchObject({ state: 'enabled' });
      await terminate([id]);
      expect(await domainsOf(daemons.b)).toEqual([]);
    },
    SLOW,
  );

  it(
    'image:add uploads to every enabled host; host:add copies the images a new host lacks from one that has them',
    async () => {
      const file = join(daemons.a.dir, 'tiny.qcow2');
      execFileSync('qemu-img', ['create', '-q', '-f', 'qcow2', file, '16M']);
      const slug = `hosts-tiny-${randomUUID().slice(0, 8)}`;
      const added = await cli('image:add', '--slug', slug, '--name', 'Tiny', '--file', file);
      expect(added.stderr).toBe('');
      const volume = `img-${added.lines[0].id as string}`;
      const volumesOf = async (daemon: OwnLibvirtd) =>
        (await virsh(daemon, 'vol-list', 'default')).split('\n').map((l) => l.trim().split(/\s+/)[0]);
      expect(await volumesOf(daemons.a)).toContain(volume);
      expect(await volumesOf(daemons.b)).toContain(volume);

      await virsh(daemons.b, 'vol-delete', '--pool', 'default', volume);
      expect((await cli('host:remove', '--name', 'host-b')).code).toBe(0);
      const again = await cli(...hostAddArgs('host-b', REGION, daemons.b.uri(), OWN_HOST_SIZE));
      expect(again.stderr).toBe('');
      expect(again.lines[0]).toMatchObject({ name: 'host-b', state: 'enabled', imagesCopied: 1 });
      expect(await volumesOf(daemons.b)).toContain(volume);

      expect((await cli('image:remove', '--slug', slug)).code).toBe(0);
      expect(await volumesOf(daemons.a)).not.toContain(volume);
      expect(await volumesOf(daemons.b)).not.toContain(volume);
    },
    SLOW,
  );

  it(
    'service:move copies a stopped VPS’s disks and domain to the other host, then removes them from the old one',
    async () => {
      const file = join(daemons.a.dir, 'tiny-move.qcow2');
      execFileSync('qemu-img', ['create', '-q', '-f', 'qcow2', file, '16M']);
      const slug = `hosts-move-${randomUUID().slice(0, 8)}`;
      expect((await cli('image:add', '--slug', slug, '--name', 'Tiny', '--file', file)).code).toBe(0);
      const res = await cli(
        'service:provision',
        '--email',
        owner.email,
        '--type',
        'vps',
        '--product',
        'vps-xs',
        '--region',
        REGION,
        '--power-state',
        'stopped',
        '--image',
        slug,
      );
      expect(res.stderr).toBe('');
      const id = res.lines[0].id as string;
      const volumesOf = async (daemon: OwnLibvirtd) =>
        (await virsh(daemon, 'vol-list', 'default'))
          .split('\n')
          .map((l) => l.trim().split(/\s+/)[0])
          .filter((v) => v.startsWith(`svc-${id}`))
          .sort();
      const [from, to] = (await domainsOf(daemons.a)).includes(`svc-${id}`) ? (['a', 'b'] as const) : (['b', 'a'] as const);
      const disks = [`svc-${id}-root.qcow2`, `svc-${id}-seed.iso`];
      expect(await volumesOf(daemons[from])).toEqual(disks);
      const uuid = await virsh(daemons[from], 'domuuid', `svc-${id}`);

      const moved = await cli('service:move', '--id', id, '--to', `host-${to}`);
      expect(moved.stderr).toBe('');
      expect(moved.lines[0]).toEqual({ id, from: `host-${from}`, to: `host-${to}`, mode: 'cold', downtimeMs: null });
      expect(await domainsOf(daemons[to])).toContain(`svc-${id}`);
      expect(await domainsOf(daemons[from])).not.toContain(`svc-${id}`);
      expect(await virsh(daemons[to], 'domuuid', `svc-${id}`)).toBe(uuid);
      expect(await volumesOf(daemons[to])).toEqual(disks);
      expect(await volumesOf(daemons[from])).toEqual([]);
      const info = await virsh(daemons[to], 'vol-dumpxml', '--pool', 'default', disks[0]);
      expect(info).not.toContain('<backingStore>');

      await terminate([id]);
      expect(await domainsOf(daemons[to])).not.toContain(`svc-${id}`);
      expect(await volumesOf(daemons[to])).toEqual([]);
      expect((await cli('image:remove', '--slug', slug)).code).toBe(0);
    },
    SLOW,
  );
});
