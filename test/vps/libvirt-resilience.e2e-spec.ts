import { randomUUID } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from 'pg';
import request from 'supertest';
import { DeploymentIdentity } from '../../libs/vps/src/compute/deployment-identity';
import { DEPLOYMENT_NS } from '../../libs/vps/src/compute/libvirt/domain-xml';
import { MachineReconciler } from '../../libs/vps/src/instances/reconcile/machine-reconciler';
import { PowerStateSync } from '../../libs/vps/src/instances/power-state/power-state-sync';
import { createAccount, TestAccount } from '../factories/accounts';
import { notificationsOf } from '../factories/notifications';
import { buildTinyGuest, libvirtTestsEnabled, TinyGuest } from '../support/libvirt';
import { LibvirtRpcTap, RPC, startRpcTap } from '../support/libvirt-rpc-tap';
import { ownLibvirtdCompute } from '../support/hosts';
import { emptyOwnLibvirtd, virshOn } from '../support/own-hosts';
import { OwnLibvirtd, startOwnLibvirtd } from '../support/own-libvirtd';
import { runCli } from '../support/run-cli';
import { startServerProcess } from '../support/server-process';
import { startTestApp, TestApp } from '../support/test-app';
import { TEST_DATABASE_URL } from '../support/test-env';
import { waitFor, waitForOrFail } from '../support/wait-for';

/**
 * Stalls, crashes and reconciliation against a libvirtd of the test's own (a session daemon of `nobody`, see
 * support/own-libvirtd.ts), never the shared qemu:///system one: the daemon frozen (SIGSTOP by its
 * pid file, SIGCONT 15 s later) at the moment a define, a start or a stop reaches it, an API
 * process killed while it provisions, and reconciliation. The tiny test guest, one at a time.
 * PostgreSQL only: the CLI, the server processes and the in-process app share the database.
 */
const enabled = libvirtTestsEnabled() && TEST_DATABASE_URL !== undefined;
const STALL_MS = 15_000;
const SLOW = 300_000;

(enabled ? describe : describe.skip)('libvirt: stalls, crashes and reconciliation (issue 32)', () => {
  let daemon: OwnLibvirtd;
  let tap: LibvirtRpcTap;
  let tiny: TinyGuest;
  let db: Client;
  let t: TestApp | undefined;
  let env: Record<string, string>;
  let email: string;

  beforeAll(async () => {
    tiny = buildTinyGuest();
    daemon = await startOwnLibvirtd();
    tap = await startRpcTap(join(tmpdir(), `libvirt-tap-${randomUUID()}.sock`), daemon.socket);
    env = ownLibvirtdCompute(daemon.uri(tap.socket), tiny.template, {
      // virsh drops a silent daemon after about 8 s: a 15 s stall loses the answer of the step under way.
      LIBVIRT_KEEPALIVE_SECONDS: '4',
      LIBVIRT_COMMAND_TIMEOUT_SECONDS: '60',
      LIBVIRT_ORPHAN_GRACE_SECONDS: '10',
      COMPUTE_RETRY_ATTEMPTS: '6',
      COMPUTE_STOP_TIMEOUT_SECONDS: '60',
      NETWORK_SSH_PORTS: '24000-24999',
    });
    db = new Client({ connectionString: TEST_DATABASE_URL });
    await db.connect();
    email = `resilience-${randomUUID()}@example.test`;
    const made = await runCli(
      ['account:create', '--email', email, '--password', 'correct horse battery staple', '--name', 'Resilience'],
      env,
    );
    expect(made.code).toBe(0);
  }, SLOW);

  afterAll(async () => {
    if (daemon) await emptyOwnLibvirtd(daemon);
    await t?.close();
    await tap?.close();
    await daemon?.stop();
    await db?.end();
    tiny?.remove();
  }, SLOW);

  /** virsh straight to the test's daemon (not through the tap). */
  const ours = (...args: string[]): Promise<string> => virshOn(daemon, ...args);
  const lines = (text: string) =>
    text
      .split('\n')
      .map((line) => line.trim())
      .filter(Boolean);
  const svcDomains = async () => lines(await ours('list', '--all', '--name')).filter((name) => name.startsWith('svc-'));
  const freeze = () => process.kill(daemon.pid(), 'SIGSTOP');
  const thawLater = async () => {
    await sleep(STALL_MS);
    process.kill(daemon.pid(), 'SIGCONT');
  };
  const cli = (args: string[]) => runCli(args, env);
  const recorded = async (id: string) =>
    (
      await db.query<{ power_state: string; status: string }>(
        'SELECT i.power_state, s.status FROM vps_instances i JOIN services s ON s.id = i.service_id WHERE s.id = $1',
        [id],
      )
    ).rows[0];
  const activity = async (id: string, action: string) =>
    (
      await db.query<{ details: Record<string, unknown> }>('SELECT details FROM activity_events WHERE entity_id = $1 AND action = $2', [
        id,
        action,
      ])
    ).rows;

  it(
    'an API process killed while it provisions: after a restart the service ends active and running, with one domain',
    async () => {
      const server = await startServerProcess(env, { startTimeoutMs: 120_000 });
      // The define is on its way to libvirtd when the process dies: libvirtd makes the domain anyway.
      const killed = tap.once(RPC.define, () => server.child.kill('SIGKILL'));
      const res = await cli(['service:provision', '--email', email, '--type', 'vps', '--product', 'vps-xs', '--no-wait']);
      expect(res.code).toBe(0);
      const [vps] = res.lines;
      expect(vps.instance.powerState).toBe('starting');
      await killed;
      await server.stop();
      expect((await recorded(vps.id)).power_state).toBe('provisioning');

      const again = await startServerProcess(env, { startTimeoutMs: 120_000 });
      try {
        // The dead process's lease runs out (30 s), the resume scan re-queues it, the job adopts the domain and starts it.
        await waitForOrFail(
          () => recorded(vps.id),
          (row) => row.power_state !== 'provisioning',
          180_000,
          (row) => `still ${row.power_state}`,
        );
        expect(await recorded(vps.id)).toEqual({ power_state: 'running', status: 'active' });
        expect(await svcDomains()).toEqual([`svc-${vps.id}`]);
        expect(await ours('domstate', `svc-${vps.id}`)).toBe('running');
        expect(await activity(vps.id, 'instance.provisioned')).toHaveLength(1);
      } finally {
        await again.stop();
      }
      // One guest at a time: this one goes.
      expect((await cli(['service:set-status', '--id', vps.id, '--status', 'terminated'])).code).toBe(0);
      expect(await svcDomains()).toEqual([]);
    },
    SLOW,
  );

  let owner: TestAccount;
  let vps: { id: string; domain: string };

  it(
    'a define, a start and a stop frozen in the middle each end once, with one domain and no orphan; the actions wait and are retried',
    async () => {
      t = await startTestApp(env);
      owner = await createAccount(t);
      const frozenDefine = tap.once(RPC.define, freeze);
      const provisioning = cli(['service:provision', '--email', owner.email, '--type', 'vps', '--product', 'vps-xs']);
      await frozenDefine;
      await thawLater();
      const res = await provisioning;
      expect(res.stderr).toBe('');
      expect(res.code).toBe(0);
      vps = { id: res.lines[0].id, domain: `svc-${res.lines[0].id}` };
      expect(res.lines[0].instance.powerState).toBe('running');
      expect(await svcDomains()).toEqual([vps.domain]);
      expect(await activity(vps.id, 'instance.provisioned')).toHaveLength(1);
      await tiny.ready(vps.domain);

      const act = (type: string) => request(t!.http).post(`/api/services/${vps.id}/instance/${type}`).set('Authorization', owner.bearer);
      const settle = (actionId: string) =>
        waitForOrFail(
          async () =>
            (
              await request(t!.http)
                .get(`/api/services/${vps.id}/instance/actions/${actionId}`)
                .set('Authorization', owner.bearer)
                .expect(200)
            ).body,
          (action: { status: string }) => action.status !== 'running',
          180_000,
          (action) => `action still ${action.status}`,
        );

      const frozenStop = tap.once(RPC.shutdown, freeze);
      const stop = await act('stop').expect(202);
      await frozenStop;
      await thawLater();
      expect(await settle(stop.body.id)).toMatchObject({ status: 'succeeded', error: null });
      expect(await ours('domstate', vps.domain)).toBe('shut off');

      const frozenStart = tap.once(RPC.start, freeze);
      const start = await act('start').expect(202);
      await frozenStart;
      await thawLater();
      expect(await settle(start.body.id)).toMatchObject({ status: 'succeeded', error: null });
      expect(await ours('domstate', vps.domain)).toBe('running');
      await tiny.ready(vps.domain, 1);
      expect(await svcDomains()).toEqual([vps.domain]);
      const report = await t.app.get(MachineReconciler).reconcile();
      expect(report.orphans).toEqual([]);
      // Only this file's VPS lives on this daemon (the worker's database may hold other files' VPSes of qemu:///system).
      expect(report.missing).not.toContain(vps.id);
    },
    SLOW,
  );

  it(
    'reconciles: a guest shut down from inside shows stopped, a svc- domain marked as ours and its volume go after the grace and others stay, a vanished machine is marked and notified',
    async () => {
      const app = t!.app;
      // Shut down from inside: the guest's own init powers off on the ACPI button; the API did nothing.
      await ours('shutdown', vps.domain);
      await waitForOrFail(
        () => ours('domstate', vps.domain),
        (state) => state === 'shut off',
        60_000,
        (state) => `still ${state}`,
      );
      await waitForOrFail(
        async () => (await app.get(PowerStateSync).reconcile(), await recorded(vps.id)),
        (row) => row.power_state === 'stopped',
        60_000,
        (row) => `recorded ${row.power_state}`,
      );
      expect(await activity(vps.id, 'instance.power_state_observed')).toContainEqual({ details: { from: 'running', to: 'stopped' } });

      // Marked as this deployment's (a service row lost, say); one of no mark and no service of ours; not ours by name.
      const stray = `svc-${randomUUID()}`;
      const unmarked = `svc-${randomUUID()}`;
      const keep = `keep-${randomUUID().slice(0, 8)}`;
      const mark = `<metadata><h:deployment xmlns:h='${DEPLOYMENT_NS}'>${await app.get(DeploymentIdentity).id()}</h:deployment></metadata>`;
      for (const name of [stray, unmarked, keep]) {
        const file = join(tmpdir(), `${name}.xml`);
        writeFileSync(
          file,
          `<domain type='qemu'><name>${name}</name>${name === stray ? mark : ''}<memory unit='MiB'>64</memory><os><type arch='x86_64'>hvm</type></os></domain>`,
        );
        try {
          await ours('define', file);
        } finally {
          rmSync(file, { force: true });
        }
      }
      // pool-build makes the folder, as the daemon's user.
      const images = join(daemon.dir, 'data', 'pool');
      await ours('pool-define-as', 'default', 'dir', '--target', images);
      await ours('pool-build', 'default');
      await ours('pool-start', 'default');
      await ours('vol-create-as', 'default', `${stray}-seed.iso`, '1M');
      await ours('vol-create-as', 'default', `${keep}.img`, '1M');

      const reconciler = app.get(MachineReconciler);
      const first = await reconciler.reconcile();
      expect(first.orphans.map((o) => `${o.kind}:${o.name}`).sort()).toEqual([`domain:${stray}`, `volume:${stray}-seed.iso`]);
      expect(first.unmarked.map((o) => `${o.kind}:${o.name}`)).toEqual([`domain:${unmarked}`]);
      expect(first.removed).toEqual([]);
      expect(reconciler.counts).toMatchObject({ orphanDomains: 1, orphanVolumes: 1 });
      await waitForOrFail(
        async () => (
          await reconciler.reconcile(),
          [...lines(await ours('list', '--all', '--name')), ...lines(await ours('vol-list', 'default'))].join(' ')
        ),
        (listing) => !listing.includes(stray),
        60_000,
        (listing) => `still there after the grace: ${listing}`,
      );
      expect(lines(await ours('list', '--all', '--name'))).toEqual(expect.arrayContaining([keep, unmarked, vps.domain]));
      expect(await ours('vol-list', 'default')).toContain(`${keep}.img`);

      // The machine vanishes behind the API's back.
      await ours('undefine', vps.domain);
      // Asked by name once more, then marked (by this call or the app's own pass, once either way).
      await waitForOrFail(
        async () => (await reconciler.reconcile(), await recorded(vps.id)),
        (row) => row.power_state === 'error',
        60_000,
        (row) => `recorded ${row.power_state}`,
      );
      expect(await activity(vps.id, 'instance.machine_missing')).toHaveLength(1);
      const notices = await waitFor(
        () => notificationsOf(t!, owner),
        (list) => list.some((n) => n.type === 'instance_fault'),
        10_000,
      );
      expect(notices.find((n) => n.type === 'instance_fault')).toMatchObject({
        severity: 'critical',
        body: expect.stringContaining('Restore one of its backups to make it again'),
        entity: { type: 'service', id: vps.id },
      });
      expect((await request(t!.http).post(`/api/services/${vps.id}/instance/start`).set('Authorization', owner.bearer)).body.code).toBe(
        'invalid_state',
      );
      await ours('undefine', keep);
      await ours('undefine', unmarked);
    },
    SLOW,
  );
});
