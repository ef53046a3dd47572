import request from 'supertest';
import { sqlRows } from '@app/core';
import { OperatorMetricsEndpoint } from '../../apps/api/src/operator-metrics/operator-metrics-endpoint';
import { createAccount, TestAccount } from '../factories/accounts';
import { hostAddArgs, invalidHostUri } from '../support/hosts';
import { runCliIn } from '../support/run-cli-in-app';
import { startTestApp, TestApp } from '../support/test-app';
import { TEST_DATABASE_URL } from '../support/test-env';

/**
 * Many hosts per region on the simulator: hosts as rows (no hypervisor behind them), placement, no_capacity and
 * the operator's host commands. The hosts of this file are removed at its end: the worker's
 * database is shared with the files after it.
 */
describe('Hosts: operator commands and placement (issue 40)', () => {
  let t: TestApp;
  let account: TestAccount;
  const region = 'us-east';
  const cli = (...args: string[]) => runCliIn(t.app, args);
  const add = (name: string, vcpus: number, memoryGb: number, diskGb: number, ...more: string[]) =>
    cli(...hostAddArgs(name, region, invalidHostUri(name), { vcpus, memoryGb, diskGb }, ...more));
  const provision = (count = 1) =>
    cli(
      'service:provision',
      '--email',
      account.email,
      '--type',
      'vps',
      '--product',
      'vps-xs',
      '--region',
      region,
      '--count',
      String(count),
    );
  const hostOf = async (serviceId: string) =>
    (
      await sqlRows<{ name: string | null }>(
        t.db,
        `SELECT h.name FROM vps_instances i LEFT JOIN hosts h ON h.id = i.host_id WHERE i.service_id = $1`,
        [serviceId],
      )
    )[0]?.name;
  const serviceCount = async () =>
    (await sqlRows<{ n: number }>(t.db, `SELECT count(*)::int AS n FROM services WHERE account_id = $1`, [account.id]))[0].n;
  const made: string[] = [];

  beforeAll(async () => {
    t = await startTestApp({ METRICS_PORT: '0' });
    account = await createAccount(t);
  });
  afterAll(async () => {
    for (const id of made) await cli('service:set-status', '--id', id, '--status', 'terminated');
    for (const name of ['kvm-a', 'kvm-b']) await cli('host:remove', '--name', name);
    await t.close();
  });

  it('refuses a host:add missing a size or with a bad value, naming the option', async () => {
    const missing = await cli('host:add', '--name', 'kvm-a', '--region', region, '--uri', 'qemu:///system', '--vcpus', '8');
    expect(missing).toMatchObject({ code: 64, stderr: '--memory-gb is required\n' });
    const bad = await add('kvm-a', 0, 1, 10, '--cpu-overcommit', '0.5', '--vnc-listen', 'kvm-a');
    expect(bad.code).toBe(65);
    for (const option of ['vcpus must', 'cpu-overcommit must', 'vnc-listen must']) expect(bad.stderr).toContain(option);
    const smallest = { vcpus: 1, memoryGb: 1, diskGb: 1 };
    const region2 = await cli(...hostAddArgs('x', 'mars', 'qemu:///system', smallest));
    expect(region2.stderr).toContain('region must be one of');
    // A libvirt URI that would run a program on this machine (ext transport, command=) is refused before it is used.
    for (const uri of ['qemu+ext:///system?command=/bin/true', 'qemu+ssh://root@kvm-x.invalid/system?command=/bin/true']) {
      const program = await cli(...hostAddArgs('kvm-x', region, uri, smallest));
      expect(program.code).toBe(65);
      expect(program.stderr).toMatch(
        /^invalid_input: uri: the (transport qemu\+ext|parameter "command") is not allowed \(it runs a program\)/,
      );
    }
    expect((await cli('host:list')).lines).not.toContainEqual(expect.objectContaining({ name: 'kvm-x' }));
  });

  it('adds hosts and lists their capacity, used and free', async () => {
    const a = await add('kvm-a', 2, 2, 50, '--cpu-overcommit', '1.5', '--vnc-listen', '10.0.0.5');
    expect(a.stderr).toBe('');
    expect(a.lines[0]).toMatchObject({
      name: 'kvm-a',
      region,
      state: 'enabled',
      vcpus: { total: 3, used: 0, free: 3 },
      memoryMb: { total: 2048, used: 0, free: 2048 },
      diskGb: { total: 50, used: 0, free: 50 },
      vpsCount: 0,
      imagesCopied: 0,
    });
    expect((await add('kvm-b', 2, 2, 50)).code).toBe(0);
    const again = await add('kvm-b', 2, 2, 50);
    expect(again).toMatchObject({ code: 65, stderr: 'invalid_state: A host named kvm-b exists already.\n' });
  });

  it('spreads new VPSes over the hosts of the region, the capacity taken in the database', async () => {
    const res = await provision(2);
    expect(res.stderr).toBe('');
    const ids = res.lines.map((line) => (line as { id: string }).id);
    made.push(...ids);
    expect((await Promise.all(ids.map(hostOf))).sort()).toEqual(['kvm-a', 'kvm-b']);
    const listed = (await cli('host:list')).lines.filter((line) => ['kvm-a', 'kvm-b'].includes((line as { name: string }).name));
    for (const host of listed) {
      expect(host).toMatchObject({ vpsCount: 1, memoryMb: { used: 1024, free: 1024 }, diskGb: { used: 25, free: 25 } });
    }
    // The same on /metrics (its own port), per host and summed per region.
    const metrics = (
      await request(`http://127.0.0.1:${t.app.get(OperatorMetricsEndpoint).port}`)
        .get('/metrics')
        .expect(200)
    ).text;
    expect(metrics).toMatch(/^host_vps\{host="kvm-a",region="us-east"\} 1$/m);
    expect(metrics).toMatch(/^host_capacity\{host="kvm-b",region="us-east",resource="memory_mb",kind="used"\} 1024$/m);
    expect(metrics).toMatch(/^host_capacity\{host="kvm-a",region="us-east",resource="vcpus",kind="free"\} 2$/m);
    expect(metrics).toMatch(/^region_capacity\{region="us-east",resource="disk_gb",kind="free"\} 50$/m);
    expect(metrics).toMatch(/^host_state\{host="kvm-a",region="us-east",state="enabled"\} 1$/m);
  });

  it('places nothing on a disabled host or one in maintenance; no room is no_capacity and nothing is made', async () => {
    expect((await cli('host:set', '--name', 'kvm-a', '--state', 'disabled')).lines[0]).toMatchObject({ state: 'disabled', vpsCount: 1 });
    const one = await provision();
    expect(one.stderr).toBe('');
    made.push((one.lines[0] as { id: string }).id);
    expect(await hostOf(made[2])).toBe('kvm-b');
    // kvm-b has no memory left now; kvm-a is disabled.
    const before = await serviceCount();
    const full = await provision();
    expect(full.code).toBe(65);
    expect(full.stderr).toMatch(
      /^no_capacity: No enabled host of region us-east has room for 1 vCPUs, 1024 MB of memory and 25 GB of disk/,
    );
    expect(await serviceCount()).toBe(before);
    expect((await cli('host:set', '--name', 'kvm-a', '--state', 'unreachable')).code).toBe(64);
    expect((await cli('host:set', '--name', 'nope', '--state', 'enabled')).code).toBe(65);
  });

  it('refuses to remove a host that holds a VPS; terminating it gives the capacity back', async () => {
    const refused = await cli('host:remove', '--name', 'kvm-b');
    expect(refused).toMatchObject({ code: 65, stderr: 'invalid_state: Host kvm-b holds VPSes; move or terminate them first.\n' });
    expect((await cli('service:set-status', '--id', made[2], '--status', 'terminated')).code).toBe(0);
    const listed = (await cli('host:list')).lines.find((line) => (line as { name: string }).name === 'kvm-b');
    expect(listed).toMatchObject({ vpsCount: 1, memoryMb: { used: 1024, free: 1024 } });
    expect((await cli('host:set', '--name', 'kvm-a', '--state', 'maintenance')).code).toBe(0);
    const placed = await provision();
    made.push((placed.lines[0] as { id: string }).id);
    expect(await hostOf(made[3])).toBe('kvm-b');
  });

  it('service:move moves a stopped VPS to another host of its region, its capacity with it', async () => {
    expect((await cli('host:set', '--name', 'kvm-a', '--state', 'enabled')).code).toBe(0);
    const res = await cli(
      'service:provision',
      '--email',
      account.email,
      '--type',
      'vps',
      '--product',
      'vps-xs',
      '--region',
      region,
      '--power-state',
      'stopped',
    );
    expect(res.stderr).toBe('');
    const id = res.lines[0].id as string;
    made.push(id);
    const from = (await hostOf(id))!;
    const to = from === 'kvm-a' ? 'kvm-b' : 'kvm-a';
    const used = async () =>
      Object.fromEntries(
        (await cli('host:list')).lines.filter((l) => ['kvm-a', 'kvm-b'].includes(l.name as string)).map((l) => [l.name, l.vpsCount]),
      );

    expect(await cli('service:move', '--id', id, '--to', from)).toMatchObject({
      code: 65,
      stderr: `invalid_state: The VPS is on ${from} already.\n`,
    });
    expect((await cli('service:move', '--id', id, '--to', 'nowhere')).stderr).toMatch(/^not_found: /);
    expect((await cli('service:move', '--id', made[3], '--to', to)).stderr).toBe(
      'invalid_state: Only a stopped VPS is moved without --live or --stop: stop it first.\n',
    );

    // Room on the other host (each holds two vps-xs).
    expect((await cli('service:set-status', '--id', made[3], '--status', 'terminated')).code).toBe(0);
    const before = await used();
    const moved = await cli('service:move', '--id', id, '--to', to);
    expect(moved.stderr).toBe('');
    expect(moved.lines[0]).toEqual({ id, from, to, mode: 'cold', downtimeMs: null });
    expect(await hostOf(id)).toBe(to);
    expect(await used()).toEqual({ [from]: (before[from] as number) - 1, [to]: (before[to] as number) + 1 });
    const shown = await t.get(`/api/services/${id}`, account.bearer).expect(200);
    expect(shown.body.instance.powerState).toBe('stopped');
  });
});

/** Two replicas on one PostgreSQL provisioning at once never take more of a host than it has. */
(TEST_DATABASE_URL ? describe : describe.skip)('Hosts: concurrent provisioning on two replicas (issue 40)', () => {
  let apps: TestApp[];
  let account: TestAccount;
  const region = 'eu-west';

  beforeAll(async () => {
    apps = [await startTestApp(), await startTestApp()];
    account = await createAccount(apps[0]);
    // 4 + 3 VPSes of vps-xs (1 vCPU, 1 GB, 25 GB): memory is the limit of c1, vCPUs of c2.
    for (const [name, vcpus, memoryGb] of [
      ['c1', 8, 4],
      ['c2', 3, 16],
    ] as const) {
      const res = await runCliIn(apps[0].app, hostAddArgs(name, region, invalidHostUri(name), { vcpus, memoryGb, diskGb: 1000 }));
      expect(res.stderr).toBe('');
    }
  });
  afterAll(async () => {
    const ids = await sqlRows<{ id: string }>(apps[0].db, `SELECT id FROM services WHERE account_id = $1`, [account.id]);
    for (const { id } of ids) await runCliIn(apps[0].app, ['service:set-status', '--id', id, '--status', 'terminated']);
    for (const name of ['c1', 'c2']) await runCliIn(apps[0].app, ['host:remove', '--name', name]);
    for (const app of apps) await app.close();
  });

  it('20 provisionings at once: 7 placed, 13 no_capacity, no host over its capacity', async () => {
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        runCliIn(apps[i % 2].app, [
          'service:provision',
          '--email',
          account.email,
          '--type',
          'vps',
          '--product',
          'vps-xs',
          '--region',
          region,
        ]),
      ),
    );
    expect(results.filter((r) => r.code === 0)).toHaveLength(7);
    const refused = results.filter((r) => r.code !== 0);
    expect(refused).toHaveLength(13);
    for (const r of refused) expect(r.stderr).toMatch(/^no_capacity: /);
    const hosts = await sqlRows<{ name: string; used_vcpus: number; used_memory_mb: number; n: number }>(
      apps[0].db,
      `SELECT h.name, h.used_vcpus, h.used_memory_mb, (SELECT count(*)::int FROM vps_instances i WHERE i.host_id = h.id) AS n
         FROM hosts h WHERE h.name IN ('c1', 'c2') ORDER BY h.name`,
    );
    expect(hosts).toEqual([
      { name: 'c1', used_vcpus: 4, used_memory_mb: 4096, n: 4 },
      { name: 'c2', used_vcpus: 3, used_memory_mb: 3072, n: 3 },
    ]);
    const services = await sqlRows<{ n: number }>(apps[0].db, `SELECT count(*)::int AS n FROM services WHERE account_id = $1`, [
      account.id,
    ]);
    expect(services[0].n).toBe(7);
  });
});
