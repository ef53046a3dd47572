import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { Client } from 'pg';
import { MachineReconciler } from '../../libs/vps/src/instances/reconcile/machine-reconciler';
import { buildTinyGuest, libvirtTestsEnabled, TinyGuest } from '../support/libvirt';
import { ownLibvirtdCompute } from '../support/hosts';
import { emptyOwnLibvirtd, virshOn } from '../support/own-hosts';
import { OwnLibvirtd, startOwnLibvirtd } from '../support/own-libvirtd';
import { runCliIn } from '../support/run-cli-in-app';
import { startTestApp, TestApp } from '../support/test-app';
import { RUN_DATABASE_URL, TEST_DATABASE_URL } from '../support/test-env';

/**
 * Two deployments (two apps on two databases: staging and production, a developer's and
 * the CI's) on one libvirtd, with no grace for orphans. Each keeps the other's machines; a
 * deployment removes only an orphan it made itself. A libvirtd of the test's own (a grace of 0 on
 * the shared qemu:///system would reach other suites' guests), the tiny guest, two at a time.
 * PostgreSQL only: the second deployment's database is a copy of the run's migrated template.
 */
const enabled = libvirtTestsEnabled() && TEST_DATABASE_URL !== undefined;
const SLOW = 240_000;

(enabled ? describe : describe.skip)('libvirt: two deployments on one hypervisor (issue 36)', () => {
  let daemon: OwnLibvirtd;
  let tiny: TinyGuest;
  let admin: Client;
  let peerDatabase: string;
  let a: TestApp | undefined;
  let b: TestApp | undefined;
  const vps: Record<'a' | 'b', { id: string; email: string }> = { a: { id: '', email: '' }, b: { id: '', email: '' } };

  beforeAll(async () => {
    tiny = buildTinyGuest();
    daemon = await startOwnLibvirtd();
    const url = new URL(TEST_DATABASE_URL!);
    peerDatabase = `${url.pathname.slice(1)}_peer`;
    const template = `${new URL(RUN_DATABASE_URL!).pathname.slice(1)}_template`;
    url.pathname = '/postgres';
    admin = new Client({ connectionString: url.toString() });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS ${peerDatabase} WITH (FORCE)`);
    await admin.query(`CREATE DATABASE ${peerDatabase} TEMPLATE ${template}`);
    url.pathname = `/${peerDatabase}`;
    const env = ownLibvirtdCompute(daemon.uri(), tiny.template, { LIBVIRT_ORPHAN_GRACE_SECONDS: '0', COMPUTE_STOP_TIMEOUT_SECONDS: '60' });
    a = await startTestApp(env);
    b = await startTestApp({ ...env, DATABASE_URL: url.toString() });
    // A pool for the seeds each deployment's VPS would have (the tiny guest boots without disks).
    await virsh('pool-define-as', 'default', 'dir', '--target', join(daemon.dir, 'data', 'pool'));
    await virsh('pool-build', 'default');
    await virsh('pool-start', 'default');
  }, SLOW);

  afterAll(async () => {
    if (daemon) await emptyOwnLibvirtd(daemon);
    await a?.close();
    await b?.close();
    if (admin) {
      await admin.query(`DROP DATABASE IF EXISTS ${peerDatabase} WITH (FORCE)`);
      await admin.end();
    }
    await daemon?.stop();
    tiny?.remove();
  }, SLOW);

  const virsh = (...args: string[]): Promise<string> => virshOn(daemon, ...args);
  const lines = (text: string) =>
    text
      .split('\n')
      .map((line) => line.trim().split(/\s+/)[0])
      .filter(Boolean);
  const domains = async () => lines(await virsh('list', '--all', '--name')).sort();
  const volumes = async () => lines(await virsh('vol-list', 'default')).sort();
  const names = (list: { kind: string; name: string }[]) => list.map((o) => `${o.kind}:${o.name}`).sort();

  /** One running VPS of a new account of this deployment, and the seed volume it would have. */
  async function provisionIn(t: TestApp): Promise<{ id: string; email: string }> {
    const email = `deployments-${randomUUID()}@example.test`;
    expect(
      (await runCliIn(t.app, ['account:create', '--email', email, '--password', 'correct horse battery staple', '--name', 'D'])).code,
    ).toBe(0);
    const res = await runCliIn(t.app, ['service:provision', '--email', email, '--type', 'vps', '--product', 'vps-xs']);
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    const id = res.lines[0].id as string;
    await virsh('vol-create-as', 'default', `svc-${id}-seed.iso`, '1M');
    await tiny.ready(`svc-${id}`);
    return { id, email };
  }

  it(
    'each deployment keeps the other’s domain and volume: after both passes, both domains run and no orphan is reported',
    async () => {
      vps.a = await provisionIn(a!);
      vps.b = await provisionIn(b!);
      const [domainA, domainB] = [`svc-${vps.a.id}`, `svc-${vps.b.id}`];
      const fromA = await a!.app.get(MachineReconciler).reconcile();
      const fromB = await b!.app.get(MachineReconciler).reconcile();

      expect(names(fromA.removed)).toEqual([]);
      expect(names(fromB.removed)).toEqual([]);
      expect(names(fromA.orphans)).toEqual([]);
      expect(names(fromB.orphans)).toEqual([]);
      expect(await domains()).toEqual([domainA, domainB].sort());
      expect(await virsh('domstate', domainA)).toBe('running');
      expect(await virsh('domstate', domainB)).toBe('running');
      expect(await volumes()).toEqual([`${domainA}-seed.iso`, `${domainB}-seed.iso`].sort());

      // Nor does the operator's adoption take the other deployment's machine.
      const adopt = ['service:provision', '--email', vps.a.email, '--type', 'vps', '--product', 'vps-xs', '--provider-ref', domainB];
      const adopted = await runCliIn(a!.app, adopt);
      expect(adopted.code).not.toBe(0);
      expect(adopted.stderr).toContain('another deployment');
    },
    SLOW,
  );

  it(
    'a domain whose service is gone from its own deployment’s database is removed by that deployment only, with its volume',
    async () => {
      const [domainA, domainB] = [`svc-${vps.a.id}`, `svc-${vps.b.id}`];
      await a!.db.query('DELETE FROM services WHERE id = $1', [vps.a.id]);

      const fromB = await b!.app.get(MachineReconciler).reconcile();
      expect(names(fromB.orphans)).toEqual([]);
      expect(names(fromB.removed)).toEqual([]);
      expect(await domains()).toEqual([domainA, domainB].sort());

      const fromA = await a!.app.get(MachineReconciler).reconcile();
      expect(names(fromA.removed)).toEqual([`domain:${domainA}`, `volume:${domainA}-seed.iso`]);
      expect(await domains()).toEqual([domainB]);
      expect(await virsh('domstate', domainB)).toBe('running');
      expect(await volumes()).toEqual([`${domainB}-seed.iso`]);

      // The other deployment ends its own VPS the ordinary way.
      expect((await runCliIn(b!.app, ['service:set-status', '--id', vps.b.id, '--status', 'terminated'])).code).toBe(0);
      expect(await domains()).toEqual([]);
      expect(await volumes()).toEqual([]);
    },
    SLOW,
  );
});
