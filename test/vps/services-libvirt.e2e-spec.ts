import { randomUUID } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import { createServer, Server, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { PowerStateSync } from '../../libs/vps/src/instances/power-state/power-state-sync';
import { createAccount, TestAccount } from '../factories/accounts';
import { createService } from '../factories/services';
import { waitFor } from '../factories/notifications';
import { libvirtCompute } from '../support/hosts';
import { buildTinyGuest, domainNames, domid, domstate, libvirtTestsEnabled, removeDomain, TinyGuest, virsh } from '../support/libvirt';
import { runCli } from '../support/run-cli';
import { startTestApp, TestApp } from '../support/test-app';
import { TEST_DATABASE_URL } from '../support/test-env';

/**
 * COMPUTE_PROVIDER=libvirt against the local qemu:///system with TCG guests (no /dev/kvm): the
 * built-in diskless guest, which ignores ACPI, and a tiny Linux guest that powers off on the ACPI
 * power button. The operator CLI and the API share the database, so this runs on PostgreSQL (the
 * adapter does not touch the database; PGlite would add nothing).
 */
const enabled = libvirtTestsEnabled() && (TEST_DATABASE_URL !== undefined || skipOnPglite());

function skipOnPglite(): false {
  process.stderr.write('Skipping the operator-CLI-process libvirt tests on PGlite: the embedded database takes one process.\n');
  return false;
}
/** Three boots of a TCG guest and a few CLI runs, or a test that waits for a guest to start and stop: about 30 s on an idle machine, past the 60 s default on a busy one. */
/** Three boots of a TCG guest and a few CLI runs: about 30 s on an idle machine, far more on a busy one. */
const SLOW = 240_000;

interface Provisioned {
  id: string;
  domain: string;
  instance: { powerState: string };
}

interface Action {
  id: string;
  status: string;
  error: { code: string; message: string } | null;
  notice: { code: string; message: string } | null;
}

(enabled ? describe : describe.skip)('Services on libvirt (real QEMU guests)', () => {
  let fast: TestApp; // COMPUTE_STOP_TIMEOUT_SECONDS=3: the diskless guest ignores ACPI
  let patient: TestApp; // 60 s: the tiny guest has time to obey it
  let owner: TestAccount;
  // patient has a database of its own (test-app.ts: its workers must not run fast's jobs), so its owner too
  let patientOwner: TestAccount;
  let tiny: TinyGuest;
  let refused: Server;
  let silent: Server;
  const silentSockets = new Set<Socket>();
  const made = new Set<string>();
  let running: Provisioned[];
  let stopped: Provisioned[];
  let tinyVps: Provisioned;
  const compute = libvirtCompute({ COMPUTE_RETRY_ATTEMPTS: '3' });

  beforeAll(async () => {
    tiny = buildTinyGuest();
    // us-east: a port nobody listens on; eu-west: a peer that accepts and never answers.
    refused = await listen(createServer());
    const refusedPort = port(refused);
    await new Promise((resolve) => refused.close(resolve));
    silent = await listen(createServer((socket) => silentSockets.add(socket)));
    const regions = `us-east=qemu+tcp://127.0.0.1:${refusedPort}/system,eu-west=qemu+tcp://127.0.0.1:${port(silent)}/system`;
    fast = await startTestApp({ ...compute, COMPUTE_STOP_TIMEOUT_SECONDS: '3', LIBVIRT_REGION_URIS: regions });
    patient = await startTestApp({ ...compute, COMPUTE_STOP_TIMEOUT_SECONDS: '60' });
    owner = await createAccount(fast);
    patientOwner = await createAccount(patient);
    // Three CLI runs, side by side, make the guests the tests use (each run starts the whole app).
    const settled = await Promise.allSettled([
      provision('--count', '4'),
      provision('--power-state', 'stopped', '--count', '2'),
      provisionTiny().then((vps) => [vps]),
    ]);
    const failed = settled.find((result) => result.status === 'rejected');
    if (failed) throw failed.reason;
    [running, stopped, [tinyVps]] = settled.map((result) => (result as PromiseFulfilledResult<Provisioned[]>).value);
  }, SLOW);

  afterAll(async () => {
    if (owner) {
      const services: { id: string }[] = await fast.db.query('SELECT id FROM services WHERE account_id = $1', [owner.id]);
      for (const { id } of services) made.add(`svc-${id}`);
    }
    for (const name of made) await removeDomain(name);
    const left = (await domainNames()).filter((name) => made.has(name));
    for (const socket of silentSockets) socket.destroy();
    await new Promise((resolve) => silent?.close(resolve));
    await patient?.close();
    await fast?.close();
    tiny?.remove();
    expect(left).toEqual([]);
  });

  const cli = (args: string[], env: Record<string, string> = {}) => runCli(args, { ...compute, ...env });

  async function provision(...args: string[]): Promise<Provisioned[]> {
    const res = await cli(['service:provision', '--email', owner.email, '--type', 'vps', '--product', 'vps-xs', ...args]);
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    for (const service of res.lines) made.add(`svc-${service.id}`);
    return res.lines.map((service) => ({ ...service, domain: `svc-${service.id}` }));
  }

  async function provisionTiny(): Promise<Provisioned> {
    const res = await cli(['service:provision', '--email', patientOwner.email, '--type', 'vps', '--product', 'vps-xs'], {
      LIBVIRT_DOMAIN_TEMPLATE: tiny.template,
      DATABASE_URL: patient.config.databaseUrl!,
    });
    expect(res.code).toBe(0);
    const [service] = res.lines;
    made.add(`svc-${service.id}`);
    return { ...service, domain: `svc-${service.id}` };
  }

  const ownerOf = (t: TestApp) => (t === patient ? patientOwner : owner);
  const act = (t: TestApp, id: string, type: string) =>
    request(t.http).post(`/api/services/${id}/instance/${type}`).set('Authorization', ownerOf(t).bearer);
  const powerStateOf = async (id: string) =>
    (await request(fast.http).get(`/api/services/${id}`).set('Authorization', owner.bearer).expect(200)).body.instance.powerState;

  async function settle(t: TestApp, id: string, actionId: string, timeoutMs = 60_000): Promise<Action> {
    return waitFor(
      async () =>
        (await request(t.http).get(`/api/services/${id}/instance/actions/${actionId}`).set('Authorization', ownerOf(t).bearer).expect(200))
          .body as Action,
      (action) => action.status !== 'running',
      timeoutMs,
    );
  }

  it('provisions VPSes through the CLI as domains svc-<id> with the product’s vCPUs and memory, running; --power-state stopped leaves them off', async () => {
    for (const vps of running) {
      expect(vps.instance.powerState).toBe('running');
      expect(await domstate(vps.domain)).toBe('running');
    }
    const info = await virsh('dominfo', running[0].domain);
    expect(info).toMatch(/^CPU\(s\):\s+1$/m);
    expect(info).toMatch(/^Max memory:\s+1048576 KiB$/m);
    expect(await virsh('dumpxml', running[0].domain)).toMatch(/<graphics type='vnc' port='\d+' autoport='yes' listen='127\.0\.0\.1'/);
    expect(await powerStateOf(running[0].id)).toBe('running');
    for (const vps of stopped) {
      expect(vps.instance.powerState).toBe('stopped');
      expect(await domstate(vps.domain)).toBe('shut off');
    }
  });

  it(
    'starts, and stops a guest that ignores ACPI by powering it off after COMPUTE_STOP_TIMEOUT_SECONDS, saying so',
    async () => {
      const vps = stopped[0];
      const start = await act(fast, vps.id, 'start').expect(202);
      expect(await settle(fast, vps.id, start.body.id)).toMatchObject({ status: 'succeeded', error: null, notice: null });
      expect(await domstate(vps.domain)).toBe('running');
      expect(await powerStateOf(vps.id)).toBe('running');

      const began = Date.now();
      const stop = await act(fast, vps.id, 'stop').expect(202);
      const done = await settle(fast, vps.id, stop.body.id);
      expect(Date.now() - began).toBeGreaterThanOrEqual(3000);
      expect(done).toMatchObject({
        status: 'succeeded',
        error: null,
        notice: { code: 'forced_power_off', message: expect.stringContaining('3 s') },
      });
      expect(await domstate(vps.domain)).toBe('shut off');
      expect(await powerStateOf(vps.id)).toBe('stopped');
      expect((await act(fast, vps.id, 'stop').expect(409)).body.code).toBe('invalid_state');
    },
    SLOW,
  );

  it(
    'stops a Linux guest gracefully on ACPI, starts it, and reboots it (a new QEMU process, no forced power-off)',
    async () => {
      const vps = tinyVps;
      await tiny.ready(vps.domain);
      const stop = await act(patient, vps.id, 'stop').expect(202);
      expect(await settle(patient, vps.id, stop.body.id, 30_000)).toMatchObject({ status: 'succeeded', notice: null });
      expect(await domstate(vps.domain)).toBe('shut off');

      const start = await act(patient, vps.id, 'start').expect(202);
      expect(await settle(patient, vps.id, start.body.id)).toMatchObject({ status: 'succeeded', notice: null });
      expect(await domstate(vps.domain)).toBe('running');
      await tiny.ready(vps.domain, 1);

      const before = await domid(vps.domain);
      const reboot = await act(patient, vps.id, 'reboot').expect(202);
      expect(await settle(patient, vps.id, reboot.body.id, 30_000)).toMatchObject({ status: 'succeeded', notice: null });
      expect(await domstate(vps.domain)).toBe('running');
      expect(await domid(vps.domain)).not.toBe(before);
      await tiny.ready(vps.domain, 2);
    },
    SLOW,
  );

  it(
    'sees a machine stopped or started outside the API: on the next read, and in the reconcile pass',
    async () => {
      const [vps, other] = [running[0], running[1]];
      await virsh('destroy', vps.domain);
      expect(await powerStateOf(vps.id)).toBe('stopped');
      expect((await act(fast, vps.id, 'stop').expect(409)).body.code).toBe('invalid_state');
      await virsh('start', vps.domain);
      expect((await act(fast, vps.id, 'start').expect(409)).body.code).toBe('invalid_state');
      expect(await powerStateOf(vps.id)).toBe('running');

      await virsh('destroy', other.domain);
      // This pass, or the apps' own scheduled one a moment before it: either records what it saw.
      await fast.app.get(PowerStateSync).reconcile();
      const observed = await fast.db.query(
        `SELECT details FROM activity_events WHERE entity_id = $1 AND action = 'instance.power_state_observed'`,
        [other.id],
      );
      expect(observed).toContainEqual({ details: { from: 'running', to: 'stopped' } });
      const list = await request(fast.http).get('/api/services?pageSize=100').set('Authorization', owner.bearer).expect(200);
      expect(list.body.data.find((s: { id: string }) => s.id === other.id).instance.powerState).toBe('stopped');
    },
    SLOW,
  );

  it(
    'answers two concurrent starts with one 202 and one 409',
    async () => {
      const vps = stopped[1];
      const answers = await Promise.all([act(fast, vps.id, 'start'), act(fast, vps.id, 'start')]);
      expect(answers.map((res) => res.status).sort()).toEqual([202, 409]);
      const accepted = answers.find((res) => res.status === 202)!;
      expect(await settle(fast, vps.id, accepted.body.id)).toMatchObject({ status: 'succeeded' });
      expect(await domstate(vps.domain)).toBe('running');
    },
    SLOW,
  );

  it('sets a fresh VNC password with a validity time on the domain for each console', async () => {
    const vps = running[2];
    const res = await request(fast.http).get(`/api/services/${vps.id}/instance/console`).set('Authorization', owner.bearer).expect(200);
    expect(res.body.password).toMatch(/^[A-Za-z0-9]{8}$/);
    const xml = await virsh('dumpxml', '--security-info', vps.domain);
    const graphics = /<graphics type='vnc'[^>]*>/.exec(xml)![0];
    expect(graphics).toContain(`passwd='${res.body.password}'`);
    const validTo = new Date(`${/passwdValidTo='([^']+)'/.exec(graphics)![1]}Z`).getTime();
    expect(validTo).toBeGreaterThan(Date.now() + 60_000);
    expect(validTo).toBeLessThan(Date.now() + 5 * 60_000);
    const again = await request(fast.http).get(`/api/services/${vps.id}/instance/console`).set('Authorization', owner.bearer).expect(200);
    expect(again.body.password).not.toBe(res.body.password);
    expect(await virsh('dumpxml', '--security-info', vps.domain)).toContain(`passwd='${again.body.password}'`);
  });

  it('fails actions with hypervisor_unavailable when the hypervisor cannot be reached, and reads stay quick and never 5xx', async () => {
    const provisioned = await cli(['service:provision', '--email', owner.email, '--type', 'vps', '--region', 'us-east'], {
      LIBVIRT_REGION_URIS: fastRegions(fast),
    });
    // The provisioning job tried COMPUTE_RETRY_ATTEMPTS times with backoff, then gave up: the VPS shows error, no domain is left.
    expect(provisioned.code).toBe(65);
    expect(provisioned.stderr).toMatch(/^invalid_state: The machine of 1 of 1 VPS\(es\) could not be made .*hypervisor_unavailable/);

    const down = await createService(fast, owner.id, { region: 'us-east' });
    const stop = await act(fast, down.id, 'stop').expect(202);
    const failed = await settle(fast, down.id, stop.body.id);
    expect(failed).toMatchObject({ status: 'failed', error: { code: 'hypervisor_unavailable' } });
    expect(await powerStateOf(down.id)).toBe('running');
    expect((await request(fast.http).get(`/api/services/${down.id}/instance/console`).set('Authorization', owner.bearer)).status).toBe(503);

    const hanging = await createService(fast, owner.id, { region: 'eu-west' });
    // The hypervisor never answers: the read's own timeout ends its look, and it answers what the database has.
    expect(await powerStateOf(hanging.id)).toBe('running');
  });

  it('adopts an existing domain with --provider-ref, and terminating powers it off and undefines it', async () => {
    const name = `adopt-${randomUUID().slice(0, 8)}`;
    made.add(name);
    const xml = join(tmpdir(), `${name}.xml`);
    writeFileSync(
      xml,
      `<domain type='qemu'><name>${name}</name><memory unit='MiB'>64</memory><os><type arch='x86_64'>hvm</type></os><devices><graphics type='vnc' autoport='yes' listen='127.0.0.1' passwd='initial1'/></devices></domain>`,
    );
    try {
      await virsh('define', xml);
    } finally {
      rmSync(xml, { force: true });
    }
    const uuid = await virsh('domuuid', name);
    const [adopted] = await provision('--provider-ref', uuid);
    expect(adopted.instance.powerState).toBe('stopped');
    const again = await cli(['service:provision', '--email', owner.email, '--type', 'vps', '--provider-ref', name]);
    expect(again.code).toBe(65);
    expect(again.stderr).toMatch(/already belongs to a service/);

    const start = await act(fast, adopted.id, 'start').expect(202);
    expect(await settle(fast, adopted.id, start.body.id)).toMatchObject({ status: 'succeeded' });
    expect(await domstate(name)).toBe('running');

    const terminated = await cli(['service:set-status', '--id', adopted.id, '--status', 'terminated']);
    expect(terminated.code).toBe(0);
    expect(terminated.lines[0]).toMatchObject({ status: 'terminated', instance: { powerState: 'stopped' } });
    expect(await domainNames()).not.toContain(name);
  });

  it('terminating a provisioned VPS removes its domain', async () => {
    const vps = running[3];
    const res = await cli(['service:set-status', '--id', vps.id, '--status', 'terminated']);
    expect(res.code).toBe(0);
    expect(await domainNames()).not.toContain(vps.domain);
  });
});

function listen(server: Server): Promise<Server> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

function port(server: Server): number {
  return (server.address() as { port: number }).port;
}

function fastRegions(t: TestApp): string {
  return Object.entries(t.config.libvirt.regionUris)
    .map(([region, uri]) => `${region}=${uri}`)
    .join(',');
}
