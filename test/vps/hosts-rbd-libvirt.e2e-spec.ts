import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { HostHealthJob } from '../../libs/vps/src/fleet/host-health.job';
import { MachineReconciler } from '../../libs/vps/src/instances/reconcile/machine-reconciler';
import { createAccount, TestAccount } from '../factories/accounts';
import { notificationsOf } from '../factories/notifications';
import { CEPH_DIR, cephMonHost, cephTestsEnabled, cephTool } from '../support/ceph';
import { ownLibvirtdCompute, provisionArgs } from '../support/hosts';
import { buildTinyGuest, guestSuiteInThisPass, TinyGuest } from '../support/libvirt';
import { addOwnHost, domainsOn, makeDefaultPool, emptyOwnLibvirtd, virshOn, volumesOn } from '../support/own-hosts';
import { OwnLibvirtd, startOwnLibvirtd } from '../support/own-libvirtd';
import { runCliIn } from '../support/run-cli-in-app';
import { startTestApp, TestApp } from '../support/test-app';
import { waitForOrFail } from '../support/wait-for';

const run = promisify(execFile);

/**
 * Hosts whose VPS disks are on Ceph (DISK_BACKEND=rbd, the one-node cluster of
 * scripts/ensure-ceph.sh): two libvirtds of the test's own are two hosts of a region, the guest is
 * the tiny busybox one (seconds under TCG) with its two RBD disks attached. A running VPS is moved
 * live with nothing copied (no volume in either host's pool), bytes are written to its disk after
 * the move (there is no backup at all), its new host's daemon is frozen (SIGSTOP) and evacuated:
 * the VPS runs on the other host from the same disk, bytes there, and the frozen host's QEMU, still
 * running, is fenced off by the cluster (blocklisted). When the daemon runs again the health pass
 * destroys that stale domain first, and the disks stay. Moved back cold, it still copies nothing.
 * Reconciliation lists the pool's VPS disks: an orphaned one of this deployment goes.
 */
const enabled = guestSuiteInThisPass() && cephTestsEnabled();
const SLOW = 240_000;
const REGION = 'eu-west';

(enabled ? describe : describe.skip)(
  'libvirt hosts with VPS disks on Ceph RBD: moved live with nothing copied, evacuated with nothing lost',
  () => {
    const pool = `vps-hosts-${randomUUID().slice(0, 8)}`;
    let daemons: Record<'a' | 'b', OwnLibvirtd>;
    let tiny: TinyGuest;
    let t: TestApp;
    let owner: TestAccount;
    let slug: string;
    let id: string;
    const fenced: string[] = [];

    const cli = (...args: string[]) => runCliIn(t.app, args);
    const rbd = (...args: string[]) => cephTool('rbd', ...args);
    const images = async () => (JSON.parse(await rbd('ls', '-p', pool, '--format', 'json')) as string[]).sort();
    const watchers = async (image: string) =>
      (JSON.parse(await rbd('status', `${pool}/${image}`, '--format', 'json')) as { watchers: { address: string }[] }).watchers.map(
        (w) => w.address,
      );
    /** qemu-io on the VPS's root image, as an operator on this machine would open it (the cluster's ceph.conf, no cephx). */
    const qemuIo = (command: string, ...flags: string[]) =>
      run('qemu-io', [...flags, '-f', 'raw', '-c', command, `rbd:${pool}/svc-${id}-root:conf=${join(CEPH_DIR, 'ceph.conf')}`]);

    beforeAll(async () => {
      tiny = buildTinyGuest();
      const template = join(tiny.template.replace(/[^/]+$/, ''), 'tiny-rbd.xml');
      writeFileSync(template, readFileSync(tiny.template, 'utf8').replace('<devices>', '<devices>\n    {{disks}}'));
      daemons = { a: await startOwnLibvirtd(), b: await startOwnLibvirtd() };
      for (const daemon of Object.values(daemons)) await makeDefaultPool(daemon);
      t = await startTestApp(
        ownLibvirtdCompute(daemons.a.uri(), template, {
          HOST_UNREACHABLE_GRACE_SECONDS: '0',
          LIBVIRT_KEEPALIVE_SECONDS: '4',
          DISK_BACKEND: 'rbd',
          CEPH_MON_HOST: cephMonHost(),
          DISKS_RBD_POOL: pool,
          LIBVIRT_ORPHAN_GRACE_SECONDS: '0',
        }),
      );
      owner = await createAccount(t);
      await addOwnHost(t.app, 'host-a', REGION, daemons.a);
      const file = join(daemons.a.dir, 'tiny-rbd.qcow2');
      await run('qemu-img', ['create', '-q', '-f', 'qcow2', file, '64M']);
      slug = `rbd-hosts-${randomUUID().slice(0, 8)}`;
      expect((await cli('image:add', '--slug', slug, '--name', 'Tiny', '--file', file)).code).toBe(0);
    }, SLOW);

    afterAll(async () => {
      if (t) {
        if (id) await cli('service:set-status', '--id', id, '--status', 'terminated');
        if (slug) await cli('image:remove', '--slug', slug);
        for (const name of ['host-a', 'host-b']) await cli('host:remove', '--name', name);
        await t.close();
      }
      for (const daemon of Object.values(daemons ?? {})) {
        await emptyOwnLibvirtd(daemon);
        await daemon.stop();
      }
      for (const address of fenced) await cephTool('ceph', 'osd', 'blocklist', 'rm', address).catch(() => undefined);
      await cephTool('ceph', 'osd', 'pool', 'rm', pool, pool, '--yes-i-really-really-mean-it').catch(() => undefined);
      tiny?.remove();
    }, SLOW);

    it(
      'moves a running VPS live with nothing copied: it runs on the other host from the same RBD images',
      async () => {
        const made = await cli(...provisionArgs(owner.email, REGION, slug));
        expect(made.stderr).toBe('');
        id = made.lines[0].id as string;
        await waitForOrFail(
          async () => (await t.get(`/api/services/${id}`, owner.bearer).expect(200)).body.instance.powerState,
          (state) => state === 'running',
          60_000,
          (state) => `the VPS did not start on host-a: ${state}`,
        );
        await tiny.ready(`svc-${id}`);
        expect(await images()).toEqual(expect.arrayContaining([`svc-${id}-root`, `svc-${id}-seed`]));
        expect(await volumesOn(daemons.a)).toEqual([]);
        await addOwnHost(t.app, 'host-b', REGION, daemons.b);

        const moved = await cli('service:move', '--id', id, '--to', 'host-b', '--live');
        expect(moved.stderr).toBe('');
        expect(moved.lines).toEqual([{ id, from: 'host-a', to: 'host-b', mode: 'live', downtimeMs: expect.any(Number) }]);
        expect(await domainsOn(daemons.a)).toEqual([]);
        expect(await virshOn(daemons.b, 'domstate', `svc-${id}`)).toBe('running');
        expect(await virshOn(daemons.b, 'dumpxml', `svc-${id}`)).toContain(`<source protocol='rbd' name='${pool}/svc-${id}-root'`);
        // Nothing copied: neither host's pool has a volume of the VPS; the one QEMU with the disk open is host-b's.
        expect([...(await volumesOn(daemons.a)), ...(await volumesOn(daemons.b))]).toEqual([]);
        expect(await watchers(`svc-${id}-root`)).toHaveLength(1);
      },
      SLOW,
    );

    it(
      'evacuates the frozen host: the VPS runs on the other host from its current disk, the frozen QEMU is fenced, its stale domain destroyed when the daemon answers again',
      async () => {
        // Written after the move, and there is no backup: only the current disk has it.
        await qemuIo('write -P 0xab 4M 1M');
        const stale = await watchers(`svc-${id}-root`);
        expect(stale).toHaveLength(1);
        fenced.push(...stale, ...(await watchers(`svc-${id}-seed`)));

        const health = t.app.get(HostHealthJob);
        process.kill(daemons.b.pid(), 'SIGSTOP');
        let evacuated: Awaited<ReturnType<typeof cli>>;
        try {
          await health.check();
          expect(await health.check()).toEqual(['host-b']);
          evacuated = await cli('host:evacuate', '--name', 'host-b');
          // Fenced before host-a started it: the cluster refuses the frozen host's QEMU, which is still running.
          const blocklist = await cephTool('ceph', 'osd', 'blocklist', 'ls');
          for (const address of stale) expect(blocklist).toContain(address);
        } finally {
          process.kill(daemons.b.pid(), 'SIGCONT');
        }
        expect(evacuated.stderr).toBe('');
        expect(evacuated.lines).toEqual([{ id, from: 'host-b', to: 'host-a', outcome: 'restarted', backupId: null }]);
        expect(await virshOn(daemons.a, 'domstate', `svc-${id}`)).toBe('running');
        expect(await virshOn(daemons.a, 'dumpxml', `svc-${id}`)).toContain(`<source protocol='rbd' name='${pool}/svc-${id}-root'`);
        // Booted again there (its second boot: a live move does not boot).
        await tiny.ready(`svc-${id}`, 1);
        expect((await qemuIo('read -P 0xab 4M 1M', '-r', '-U')).stdout).not.toMatch(/fail/i);
        const shown = (await t.get(`/api/services/${id}`, owner.bearer).expect(200)).body.instance;
        expect(shown.powerState).toBe('running');
        // The customer is told nothing was lost (a warning, not the critical notice of a restore from a backup).
        const notice = await waitForOrFail(
          async () => (await notificationsOf(t, owner)).find((n) => n.type === 'instance_evacuated'),
          (found) => found !== undefined,
          30_000,
          () => 'no instance_evacuated notification',
        );
        expect(notice).toMatchObject({ severity: 'warning', title: expect.stringMatching(/was started again on another host$/) });
        expect(notice?.body).toContain('nothing written to it was lost');
        const events = await t.get(`/api/events?entityType=service&entityId=${id}`, owner.bearer).expect(200);
        expect(events.body.data.find((e: { action: string }) => e.action === 'instance.evacuate')).toMatchObject({
          details: { outcome: 'restarted', backupId: null },
        });

        // host-b answers again: its stale domain goes (this pass, or the periodic job's that came first); the disks are the VPS's and stay.
        expect(await health.check()).toEqual([]);
        expect(await domainsOn(daemons.b)).toEqual([]);
        expect(await images()).toEqual(expect.arrayContaining([`svc-${id}-root`, `svc-${id}-seed`]));
        expect(await virshOn(daemons.a, 'domstate', `svc-${id}`)).toBe('running');
        expect((await cli('host:list')).lines.find((line) => line.name === 'host-b')).toMatchObject({ state: 'enabled', vpsCount: 0 });
      },
      SLOW,
    );

    it(
      'moves it cold (stopped, moved, started again) with nothing copied, its disk as it was',
      async () => {
        const moved = await cli('service:move', '--id', id, '--to', 'host-b', '--stop');
        expect(moved.stderr).toBe('');
        expect(moved.lines).toEqual([expect.objectContaining({ id, from: 'host-a', to: 'host-b', mode: 'cold' })]);
        expect(await domainsOn(daemons.a)).toEqual([]);
        expect(await virshOn(daemons.b, 'domstate', `svc-${id}`)).toBe('running');
        expect([...(await volumesOn(daemons.a)), ...(await volumesOn(daemons.b))]).toEqual([]);
        expect((await qemuIo('read -P 0xab 4M 1M', '-r', '-U')).stdout).not.toMatch(/fail/i);
        expect((await t.get(`/api/services/${id}`, owner.bearer).expect(200)).body.instance.powerState).toBe('running');
      },
      SLOW,
    );

    it(
      'reconciliation removes an orphaned disk of this deployment from Ceph and leaves one of no service of its own',
      async () => {
        expect((await cli('service:set-status', '--id', id, '--status', 'terminated')).code).toBe(0);
        await waitForOrFail(
          images,
          (left) => !left.some((image) => image.startsWith(`svc-${id}-`)),
          60_000,
          (left) => `the terminated VPS's disks are still there: ${left.join(', ')}`,
        );
        // What a crash between a disk's creation and its record could leave, and an image of no service of this database.
        const stranger = `svc-${randomUUID()}-root`;
        await rbd('create', `${pool}/svc-${id}-root`, '--size', '8M');
        await rbd('create', `${pool}/${stranger}`, '--size', '8M');
        const report = await t.app.get(MachineReconciler).reconcile();
        expect(report.unmarked).toEqual(expect.arrayContaining([{ hypervisor: `rbd:${pool}`, kind: 'volume', name: stranger }]));
        const left = await images();
        expect(left).toContain(stranger);
        expect(left).not.toContain(`svc-${id}-root`);
      },
      SLOW,
    );
  },
);
