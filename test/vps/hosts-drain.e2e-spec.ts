import request from 'supertest';
import { sqlRows } from '@app/core';
import { OperatorMetricsEndpoint } from '../../apps/api/src/operator-metrics/operator-metrics-endpoint';
import { RelocationJob } from '../../libs/vps/src/fleet/relocation/relocation.job';
import { createAccount, TestAccount } from '../factories/accounts';
import { notificationsOf } from '../factories/notifications';
import { hostAddArgs, invalidHostUri } from '../support/hosts';
import { runCliIn } from '../support/run-cli-in-app';
import { TestSmtpServer } from '../support/smtp';
import { startTestApp, TestApp } from '../support/test-app';
import { waitFor, waitForOrFail } from '../support/wait-for';

/**
 * On the simulator: `host:drain` moves every VPS off a host (a running one stopped,
 * moved and started again, its customer told and mailed before and after), leaves one without
 * room where it is (exit 65), goes on when run again; moves are durable records that a dead
 * process's successor finishes, or rolls back once their attempts are spent; /metrics counts them.
 */
describe('Hosts: drain and durable moves (issue 40)', () => {
  let t: TestApp;
  let owner: TestAccount;
  const smtp = new TestSmtpServer();
  const region = 'us-east';
  const HOSTS = ['drain-a', 'drain-b'];
  const made: string[] = [];
  const cli = (...args: string[]) => runCliIn(t.app, args);

  const hostOf = async (serviceId: string) =>
    (
      await sqlRows<{ name: string | null }>(
        t.db,
        `SELECT h.name FROM vps_instances i LEFT JOIN hosts h ON h.id = i.host_id WHERE i.service_id = $1`,
        [serviceId],
      )
    )[0]?.name;
  const powerOf = async (id: string) => (await t.get(`/api/services/${id}`, owner.bearer).expect(200)).body.instance.powerState as string;
  const listed = async (name: string) => (await cli('host:list')).lines.find((line) => line.name === name)!;
  const provision = async (powerState?: 'stopped') => {
    const res = await cli(
      'service:provision',
      '--email',
      owner.email,
      '--type',
      'vps',
      '--product',
      'vps-xs',
      '--region',
      region,
      ...(powerState ? ['--power-state', powerState] : []),
    );
    expect(res.stderr).toBe('');
    const id = res.lines[0].id as string;
    made.push(id);
    await waitForOrFail(
      () => powerOf(id),
      (state) => state === (powerState ?? 'running'),
      15_000,
      (state) => `VPS ${id} is ${state}`,
    );
    return id;
  };
  const metrics = async () =>
    (
      await request(`http://127.0.0.1:${t.app.get(OperatorMetricsEndpoint).port}`)
        .get('/metrics')
        .expect(200)
    ).text;
  /** Moves ended by mode and outcome on /metrics ('cold succeeded': n), less what earlier files of this worker's database left. */
  let before: Record<string, number> = {};
  const movesCounted = async () => {
    const counted: Record<string, number> = {};
    for (const [, mode, outcome, n] of (await metrics()).matchAll(/^vps_moves_total\{mode="(\w+)",outcome="(\w+)"\} (\d+)$/gm))
      counted[`${mode} ${outcome}`] = Number(n) - (before[`${mode} ${outcome}`] ?? 0);
    return counted;
  };
  const noMoves = {
    'cold succeeded': 0,
    'cold rolled_back': 0,
    'cold failed': 0,
    'live succeeded': 0,
    'live rolled_back': 0,
    'live failed': 0,
  };
  const moveOf = (id: string) =>
    sqlRows<{ status: string; from_host: string; to_host: string; was_running: boolean; attempts: number; last_error: string | null }>(
      t.db,
      `SELECT status, from_host, to_host, was_running, attempts, last_error FROM vps_relocations WHERE service_id = $1 ORDER BY created_at`,
      [id],
    );

  /** What a process that died mid-move leaves: the room held on `to`, the VPS `provisioning`, a running record whose lease ran out. */
  async function deadMove(id: string, to: string, attempts: number): Promise<string> {
    await t.db.query(
      `UPDATE hosts h SET used_vcpus = h.used_vcpus + a.vcpus, used_memory_mb = h.used_memory_mb + a.memory_mb, used_disk_gb = h.used_disk_gb + a.disk_gb
         FROM host_allocations a WHERE a.service_id = $1 AND h.name = $2`,
      [id, to],
    );
    await t.db.query(`UPDATE vps_instances SET power_state = 'provisioning' WHERE service_id = $1`, [id]);
    const [row] = await sqlRows<{ id: string }>(
      t.db,
      `INSERT INTO vps_relocations (service_id, source, from_host_id, from_host, to_host_id, to_host, vcpus, memory_mb, disk_gb, attempts, lease_until, last_error)
       SELECT a.service_id, 'copy', f.id, f.name, n.id, n.name, a.vcpus, a.memory_mb, a.disk_gb, $3, now() - interval '1 second', 'the process died'
         FROM host_allocations a JOIN hosts f ON f.id = a.host_id JOIN hosts n ON n.name = $2 WHERE a.service_id = $1
       RETURNING id`,
      [id, to, attempts],
    );
    return row.id;
  }

  beforeAll(async () => {
    await smtp.start();
    t = await startTestApp({ METRICS_PORT: '0', SMTP_URL: smtp.url, COMPUTE_RETRY_ATTEMPTS: '2' });
    owner = await createAccount(t);
    before = await movesCounted();
    for (const name of HOSTS) {
      const added = await cli(...hostAddArgs(name, region, invalidHostUri(name), { vcpus: 2, memoryGb: 2, diskGb: 50 }));
      expect(added.stderr).toBe('');
    }
  });
  afterAll(async () => {
    for (const id of made) await cli('service:set-status', '--id', id, '--status', 'terminated');
    for (const name of HOSTS) await cli('host:remove', '--name', name);
    await t.close();
    await smtp.stop();
  });

  it('drains a host --cold: a stopped VPS moved cold, a running one stopped, moved and started again with its customer told', async () => {
    expect((await cli('host:set', '--name', 'drain-b', '--state', 'disabled')).code).toBe(0);
    const stopped = await provision('stopped');
    const running = await provision();
    expect([await hostOf(stopped), await hostOf(running)]).toEqual(['drain-a', 'drain-a']);
    expect((await cli('host:set', '--name', 'drain-b', '--state', 'enabled')).code).toBe(0);

    const drained = await cli('host:drain', '--name', 'drain-a', '--cold');
    expect(drained.stderr).toBe('');
    expect(drained.code).toBe(0);
    expect(drained.lines).toEqual([
      { id: stopped, from: 'drain-a', to: 'drain-b', outcome: 'moved', mode: 'cold', downtimeMs: null },
      { id: running, from: 'drain-a', to: 'drain-b', outcome: 'moved', mode: 'cold', downtimeMs: null },
    ]);
    expect([await hostOf(stopped), await hostOf(running)]).toEqual(['drain-b', 'drain-b']);
    expect(await powerOf(stopped)).toBe('stopped');
    expect(await powerOf(running)).toBe('running');
    expect(await listed('drain-a')).toMatchObject({ state: 'maintenance', vpsCount: 0, memoryMb: { used: 0 } });
    expect(await listed('drain-b')).toMatchObject({ state: 'enabled', vpsCount: 2, memoryMb: { used: 2048 } });
    expect(await moveOf(stopped)).toMatchObject([{ status: 'succeeded', from_host: 'drain-a', to_host: 'drain-b', was_running: false }]);
    expect(await moveOf(running)).toMatchObject([{ status: 'succeeded', was_running: true }]);

    // The running VPS's customer: told before and after, in the API and by mail.
    const told = await waitFor(
      async () => (await notificationsOf(t, owner)).filter((n) => n.entity?.id === running).map((n) => n.type),
      (types) => types.includes('instance_move_started') && types.includes('instance_move_finished'),
    );
    expect(told).toEqual(expect.arrayContaining(['instance_move_started', 'instance_move_finished']));
    expect((await notificationsOf(t, owner)).filter((n) => n.entity?.id === stopped && n.type.startsWith('instance_move'))).toEqual([]);
    await smtp.waitForMail(owner.email, /is moving to another host/);
    await smtp.waitForMail(owner.email, /is running on its new host/);

    expect(await movesCounted()).toEqual({ ...noMoves, 'cold succeeded': 2 });
    // Run again: nothing is left on it.
    expect(await cli('host:drain', '--name', 'drain-a')).toMatchObject({ code: 0, lines: [] });
  });

  it('a VPS with no room on another host stays where it is, running, and the drain exits 65; run again, it goes on, the running VPS live', async () => {
    const running = made[1];
    const drained = await cli('host:drain', '--name', 'drain-b');
    expect(drained.code).toBe(65);
    expect(drained.lines).toHaveLength(2);
    for (const line of drained.lines) expect(line).toMatchObject({ from: 'drain-b', to: null, outcome: 'no_capacity' });
    expect(drained.stderr).toMatch(/^invalid_state: 2 VPS\(es\) could not be moved off drain-b/);
    expect(await hostOf(running)).toBe('drain-b');
    expect(await powerOf(running)).toBe('running');
    expect(await listed('drain-b')).toMatchObject({ state: 'maintenance', vpsCount: 2 });
    expect(await listed('drain-a')).toMatchObject({ memoryMb: { used: 0 } });

    expect((await cli('host:set', '--name', 'drain-a', '--state', 'enabled')).code).toBe(0);
    const again = await cli('host:drain', '--name', 'drain-b');
    expect(again.stderr).toBe('');
    expect(again.lines.map((line) => [line.outcome, line.mode])).toEqual([
      ['moved', 'cold'],
      ['moved', 'live'],
    ]);
    expect(await hostOf(running)).toBe('drain-a');
    expect(await powerOf(running)).toBe('running');
    expect(await listed('drain-b')).toMatchObject({ vpsCount: 0, memoryMb: { used: 0 } });
    expect((await moveOf(running)).at(-1)).toMatchObject({ status: 'succeeded', was_running: true });
    // Moved live: told once, after, that nothing is asked of them; never that it is being shut down.
    const live = await waitFor(
      async () => (await notificationsOf(t, owner)).filter((n) => n.entity?.id === running && n.type === 'instance_move_finished'),
      (told) => told.length === 2,
    );
    expect(live.map((n) => n.body).join('\n')).toContain('was moved to another host while it ran');
    expect((await notificationsOf(t, owner)).filter((n) => n.entity?.id === running && n.type === 'instance_move_started')).toHaveLength(1);
    await smtp.waitForMail(owner.email, /was moved to another host, no action needed/);
  });

  it('a move a dead process left is resumed by the job and finished', async () => {
    expect((await cli('host:set', '--name', 'drain-b', '--state', 'enabled')).code).toBe(0);
    const id = made[0];
    expect(await hostOf(id)).toBe('drain-a');
    const moveId = await deadMove(id, 'drain-b', 1);
    expect(await t.app.get(RelocationJob).resume()).toContain(moveId);
    await waitForOrFail(
      async () => (await moveOf(id)).at(-1)?.status,
      (status) => status === 'succeeded',
      15_000,
      (status) => `the move is ${status}`,
    );
    expect(await hostOf(id)).toBe('drain-b');
    expect(await powerOf(id)).toBe('stopped');
    expect(await listed('drain-b')).toMatchObject({ vpsCount: 1, memoryMb: { used: 1024 } });
    expect(await listed('drain-a')).toMatchObject({ vpsCount: 1, memoryMb: { used: 1024 } });
  });

  it('a move whose attempts are spent is rolled back: the room held goes back, the VPS stays stopped where it is', async () => {
    const id = made[0];
    const moveId = await deadMove(id, 'drain-a', 2);
    expect(await listed('drain-a')).toMatchObject({ memoryMb: { used: 2048 } });
    expect(await t.app.get(RelocationJob).resume()).toContain(moveId);
    const ended = await waitForOrFail(
      async () => (await moveOf(id)).at(-1),
      (move) => move?.status !== 'running',
      15_000,
      () => 'the move is still running',
    );
    expect(ended).toMatchObject({ status: 'rolled_back', attempts: 3, last_error: 'the process died' });
    expect(await hostOf(id)).toBe('drain-b');
    expect(await powerOf(id)).toBe('stopped');
    expect(await listed('drain-a')).toMatchObject({ vpsCount: 1, memoryMb: { used: 1024 } });
    expect(await listed('drain-b')).toMatchObject({ vpsCount: 1, memoryMb: { used: 1024 } });
    expect(await movesCounted()).toEqual({ ...noMoves, 'cold succeeded': 4, 'cold rolled_back': 1, 'live succeeded': 1 });
  });

  it('service:move moves a running VPS only with --live or --stop: --stop starts it again on the new host, --live keeps it running', async () => {
    const running = made[1];
    expect(await hostOf(running)).toBe('drain-a');
    expect((await cli('service:move', '--id', running, '--to', 'drain-b')).stderr).toBe(
      'invalid_state: Only a stopped VPS is moved without --live or --stop: stop it first.\n',
    );
    expect(await cli('service:move', '--id', running, '--to', 'drain-b', '--live', '--stop')).toMatchObject({
      code: 64,
      stderr: expect.stringContaining('--live and --stop are one or the other'),
    });
    const moved = await cli('service:move', '--id', running, '--to', 'drain-b', '--stop');
    expect(moved.stderr).toBe('');
    expect(moved.lines).toEqual([{ id: running, from: 'drain-a', to: 'drain-b', mode: 'cold', downtimeMs: null }]);
    expect(await powerOf(running)).toBe('running');
    const live = await cli('service:move', '--id', running, '--to', 'drain-a', '--live');
    expect(live.stderr).toBe('');
    expect(live.lines).toEqual([{ id: running, from: 'drain-b', to: 'drain-a', mode: 'live', downtimeMs: null }]);
    expect(await powerOf(running)).toBe('running');
    expect(await hostOf(running)).toBe('drain-a');
    const [record] = await sqlRows<{ live: boolean }>(
      t.db,
      `SELECT live FROM vps_relocations WHERE service_id = $1 ORDER BY created_at DESC LIMIT 1`,
      [running],
    );
    expect(record.live).toBe(true);
    expect((await cli('service:move', '--id', running, '--to', 'drain-b', '--live')).lines).toMatchObject([
      { to: 'drain-b', mode: 'live' },
    ]);
  });

  it('a moving VPS keeps its forwarded SSH port when it is free on the new host, and gets another when it is not', async () => {
    // The simulator forwards no ports: the leases a libvirt host's VPS would hold are written here.
    const [a, b] = await Promise.all(
      HOSTS.map(async (name) => (await sqlRows<{ id: string }>(t.db, `SELECT id FROM hosts WHERE name = $1`, [name]))[0].id),
    );
    const [mover, other] = [made[0], made[1]];
    const leasesOf = (id: string) =>
      sqlRows<{ scope: string; value: string }>(t.db, `SELECT scope, value FROM network_leases WHERE service_id = $1 ORDER BY scope`, [id]);
    const sshPortOf = async (id: string) =>
      (await sqlRows<{ ssh_port: number | null }>(t.db, `SELECT ssh_port FROM vps_instances WHERE service_id = $1`, [id]))[0].ssh_port;
    expect([await hostOf(mover), await hostOf(other)]).toEqual(['drain-b', 'drain-b']);
    await t.db.query(`INSERT INTO network_leases (scope, value, service_id) VALUES ($1, '22001', $2), ($1, '22002', $3)`, [
      `ssh-port:host:${b}`,
      mover,
      other,
    ]);
    await t.db.query(`UPDATE vps_instances SET ssh_host = '127.0.0.1', ssh_port = 22001 WHERE service_id = $1`, [mover]);

    expect((await cli('service:move', '--id', mover, '--to', 'drain-a')).stderr).toBe('');
    expect(await leasesOf(mover)).toEqual([{ scope: `ssh-port:host:${a}`, value: '22001' }]);
    expect(await sshPortOf(mover)).toBe(22001);

    // Back to drain-b, where `other` took 22001 meanwhile: another port of the range, the record shows it.
    await t.db.query(`UPDATE network_leases SET value = '22001' WHERE service_id = $1`, [other]);
    expect((await cli('service:move', '--id', mover, '--to', 'drain-b')).stderr).toBe('');
    const [lease] = await leasesOf(mover);
    expect(lease.scope).toBe(`ssh-port:host:${b}`);
    expect(lease.value).not.toBe('22001');
    expect(await leasesOf(mover)).toHaveLength(1);
    expect(await sshPortOf(mover)).toBe(Number(lease.value));
  });
});
