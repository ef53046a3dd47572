import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import request from 'supertest';
import { BackupRunner } from '../../libs/vps/src/backups/backup-runner';
import { HostHealthJob } from '../../libs/vps/src/fleet/host-health.job';
import { createAccount, TestAccount } from '../factories/accounts';
import { buildTinyGuest, guestSuiteInThisPass, TinyGuest } from '../support/libvirt';
import { ownLibvirtdCompute, provisionArgs } from '../support/hosts';
import { addOwnHost, domainsOn, makeDefaultPool, emptyOwnLibvirtd, virshOn, volumesOn } from '../support/own-hosts';
import { OwnLibvirtd, startOwnLibvirtd } from '../support/own-libvirtd';
import { runCliIn } from '../support/run-cli-in-app';
import { startTestApp, TestApp } from '../support/test-app';
import { waitForOrFail } from '../support/wait-for';

/**
 * A host that dies, on real hypervisors: two libvirtds of the test's own are two hosts of
 * a region, backups go to the local store. A VPS on host-a whose disk holds known bytes is backed
 * up and started (the tiny busybox guest, seconds under TCG; no Debian guest), host-a's daemon is
 * frozen (SIGSTOP) and marked unreachable, and `host:evacuate` makes it again on host-b from the
 * backup, without a word to host-a: defined and running there, its disk the backup's bytes (a
 * second VPS, without a backup, is rebuilt there from its image). When
 * host-a's daemon runs again, the next health pass removes the stale domain and disks there.
 */
const enabled = guestSuiteInThisPass();
const SLOW = 240_000;
const REGION = 'eu-west';

(enabled ? describe : describe.skip)('libvirt: host:evacuate restores a dead host’s VPS from its backup (issue 40)', () => {
  let daemons: Record<'a' | 'b', OwnLibvirtd>;
  let tiny: TinyGuest;
  let t: TestApp;
  let owner: TestAccount;
  let slug: string;
  let id: string;
  /** A second VPS of host-a, with no backup: rebuilt from its image. */
  let plain: string;

  const virsh = virshOn;
  const domainsOf = (daemon: OwnLibvirtd) => domainsOn(daemon);
  const volumesOf = (daemon: OwnLibvirtd) => volumesOn(daemon);
  const cli = (...args: string[]) => runCliIn(t.app, args);
  const addHost = (name: 'a' | 'b') => addOwnHost(t.app, `host-${name}`, REGION, daemons[name]);
  const rootPath = (daemon: OwnLibvirtd) => virsh(daemon, 'vol-path', '--pool', 'default', `svc-${id}-root.qcow2`);

  beforeAll(async () => {
    tiny = buildTinyGuest();
    daemons = { a: await startOwnLibvirtd(), b: await startOwnLibvirtd() };
    for (const daemon of Object.values(daemons)) await makeDefaultPool(daemon);
    t = await startTestApp(
      ownLibvirtdCompute(daemons.a.uri(), tiny.template, { HOST_UNREACHABLE_GRACE_SECONDS: '0', LIBVIRT_KEEPALIVE_SECONDS: '4' }),
    );
    owner = await createAccount(t);
    // Only host-a at first: the VPS goes there.
    await addHost('a');
    const file = join(daemons.a.dir, 'tiny-evacuate.qcow2');
    execFileSync('qemu-img', ['create', '-q', '-f', 'qcow2', file, '64M']);
    slug = `evacuate-${randomUUID().slice(0, 8)}`;
    expect((await cli('image:add', '--slug', slug, '--name', 'Tiny', '--file', file)).code).toBe(0);
  }, SLOW);

  afterAll(async () => {
    if (t) {
      for (const vps of [id, plain]) if (vps) await cli('service:set-status', '--id', vps, '--status', 'terminated');
      if (slug) await cli('image:remove', '--slug', slug);
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
    'a frozen host’s VPSes are made on the other host, one from its backup (running, its bytes), one from its image; the stale domains go when the old host answers',
    async () => {
      const made = await cli(...provisionArgs(owner.email, REGION, slug, '--power-state', 'stopped', '--count', '2'));
      expect(made.stderr).toBe('');
      [id, plain] = made.lines.map((line) => line.id as string);
      expect(await domainsOf(daemons.a)).toEqual([`svc-${id}`, `svc-${plain}`].sort());
      // Known bytes on the VPS's disk (1 MiB of 0xab at 4 MiB), written while it is stopped.
      execFileSync('qemu-io', ['-f', 'qcow2', '-c', 'write -P 0xab 4M 1M', await rootPath(daemons.a)], { stdio: 'ignore' });
      const backup = await t.app.get(BackupRunner).run(id, 'operator');
      expect(backup).toMatchObject({ status: 'available' });
      const backupId = (backup as { backupId: string }).backupId;

      await request(t.http)
        .post(`/api/services/${id}/instance/start`)
        .set('Authorization', owner.bearer)
        .set('Idempotency-Key', randomUUID())
        .expect(202);
      await waitForOrFail(
        async () => (await t.get(`/api/services/${id}`, owner.bearer).expect(200)).body.instance.powerState,
        (state) => state === 'running',
        60_000,
        (state) => `the VPS did not start on host-a: ${state}`,
      );
      await addHost('b');

      const health = t.app.get(HostHealthJob);
      process.kill(daemons.a.pid(), 'SIGSTOP');
      let evacuated: Awaited<ReturnType<typeof cli>>;
      try {
        await health.check();
        expect(await health.check()).toEqual(['host-a']);
        evacuated = await cli('host:evacuate', '--name', 'host-a');
        // Nothing was asked of host-a: its disk is still there.
        expect(existsSync(join(daemons.a.dir, 'data', 'pool', `svc-${id}-root.qcow2`))).toBe(true);
      } finally {
        process.kill(daemons.a.pid(), 'SIGCONT');
      }
      expect(evacuated.stderr).toBe('');
      expect(evacuated.lines).toEqual(
        expect.arrayContaining([
          { id, from: 'host-a', to: 'host-b', outcome: 'restored', backupId },
          { id: plain, from: 'host-a', to: 'host-b', outcome: 'rebuilt', backupId: null },
        ]),
      );
      expect(evacuated.lines).toHaveLength(2);
      // The one without a backup: a new disk on its image (host:add copied the image to host-b), stopped as it was.
      expect(await virsh(daemons.b, 'domstate', `svc-${plain}`)).toBe('shut off');
      expect(await virsh(daemons.b, 'vol-dumpxml', '--pool', 'default', `svc-${plain}-root.qcow2`)).toMatch(/<backingStore>[\s\S]*img-/);
      expect(await virsh(daemons.b, 'domstate', `svc-${id}`)).toBe('running');
      const restored = await rootPath(daemons.b);
      expect(await virsh(daemons.b, 'vol-dumpxml', '--pool', 'default', `svc-${id}-root.qcow2`)).not.toContain('<backingStore>');
      const read = execFileSync('qemu-io', ['-r', '-U', '-f', 'qcow2', '-c', 'read -P 0xab 4M 1M', restored], { encoding: 'utf8' });
      expect(read).not.toMatch(/fail/i);
      expect(execFileSync('qemu-img', ['compare', '-q', '-U', await rootPath(daemons.a), restored]).length).toBe(0);
      const shown = (await t.get(`/api/services/${id}`, owner.bearer).expect(200)).body.instance;
      expect(shown.powerState).toBe('running');
      expect(shown.hostReachable).toBeUndefined();

      // host-a answers again: its stale domain (still running there) and disks are removed by the
      // health pass (this one, or the periodic job's that came first).
      expect(await health.check()).toEqual([]);
      expect(await domainsOf(daemons.a)).toEqual([]);
      expect(await volumesOf(daemons.a)).toEqual([]);
      expect(await domainsOf(daemons.b)).toEqual([`svc-${id}`, `svc-${plain}`].sort());
      expect(await virsh(daemons.b, 'domstate', `svc-${id}`)).toBe('running');
      expect((await cli('host:list')).lines.find((line) => line.name === 'host-a')).toMatchObject({ state: 'enabled', vpsCount: 0 });
    },
    SLOW,
  );
});
