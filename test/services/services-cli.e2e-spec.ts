import { rmSync } from 'node:fs';
import request from 'supertest';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { TransactionRunner } from '@app/core';
import { NetworkAllocator } from '../../libs/vps/src/instances/network/network-allocator';
import { NetworkLeasesRepository } from '../../libs/vps/src/instances/network/network-leases.repository';
import { ServiceStatusService } from '../../libs/services/src/service-status.service';
import { createAccount, TestAccount } from '../factories/accounts';
import { createService } from '../factories/services';
import { runCli } from '../support/run-cli';
import { runCliIn } from '../support/run-cli-in-app';
import { freshDataDir } from '../support/test-database';
import { startTestApp, TestApp } from '../support/test-app';
import { TEST_DATABASE_URL } from '../support/test-env';

/** `npm run cli -- service:provision | service:set-status` (the built CLI, as operators run it). */
describe('Services: operator commands', () => {
  let dataDir: string;
  let t: TestApp;
  let account: TestAccount | undefined;
  let email: string;
  beforeAll(async () => {
    dataDir = freshDataDir('services-cli-');
    t = await startTestApp();
    if (TEST_DATABASE_URL) {
      // Same database as the app: what the CLI makes is visible through the API.
      account = await createAccount(t);
      email = account.email;
    } else {
      email = `ops-${Date.now()}@example.test`;
      const made = await runCli(['account:create', '--email', email, '--password', 'a long enough pw', '--name', 'Ops'], {
        DATA_DIR: dataDir,
      });
      expect(made.code).toBe(0);
    }
  });
  afterAll(async () => {
    await t.close();
    rmSync(dataDir, { recursive: true, force: true });
  });
  const cli = (...args: string[]) => runCli(args, { DATA_DIR: dataDir });

  it('provisions services and prints each as one JSON line in the API’s shape; a VPS runs', async () => {
    const res = await cli('service:provision', '--email', email.toUpperCase(), '--type', 'vps', '--count', '3', '--product', 'vps-l');
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    expect(res.lines).toHaveLength(3);
    for (const line of res.lines) {
      expect(Object.keys(line)).toEqual([
        'id',
        'name',
        'type',
        'status',
        'price',
        'billingCycle',
        'nextDueDate',
        'productId',
        'currency',
        'createdAt',
        'instance',
        'objectStorage',
        'volume',
      ]);
      expect(line).toMatchObject({
        type: 'vps',
        objectStorage: null,
        status: 'active',
        price: 18.99,
        billingCycle: 'monthly',
        currency: 'EUR',
        instance: { powerState: 'running' },
      });
    }
    if (account) {
      for (const line of res.lines) {
        const api = await request(t.http).get(`/api/services/${line.id}`).set('Authorization', account.bearer);
        expect(api.body).toEqual(line);
      }
    }
    const storage = await cli(
      'service:provision',
      '--email',
      email,
      '--type',
      'object_storage',
      '--status',
      'pending',
      '--billing-cycle',
      'annually',
    );
    expect(storage.code).toBe(0);
    expect(storage.lines).toEqual([
      expect.objectContaining({ type: 'object_storage', status: 'pending', billingCycle: 'annually', instance: null }),
    ]);
    const stopped = await cli('service:provision', '--email', email, '--type', 'vps', '--status', 'suspended');
    expect(stopped.lines[0]).toMatchObject({ status: 'suspended', instance: { powerState: 'stopped' } });
  });

  it('changes a service’s status and prints the service', async () => {
    const [service] = (await cli('service:provision', '--email', email, '--type', 'vps', '--status', 'pending')).lines;
    const res = await cli('service:set-status', '--id', service.id, '--status', 'active', '--reason', 'Invoice paid');
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    expect(res.lines).toEqual([{ ...service, status: 'active', nextDueDate: expect.any(String) }]);
    expect(new Date(res.lines[0].nextDueDate).getTime()).toBeGreaterThan(Date.now());
    const cancelled = await cli('service:set-status', '--id', service.id, '--status', 'cancelled');
    expect(cancelled.lines[0]).toMatchObject({ status: 'cancelled', nextDueDate: null });
    if (account) {
      const api = await request(t.http).get(`/api/services/${service.id}`).set('Authorization', account.bearer);
      expect(api.body.status).toBe('cancelled');
    }
  });

  it('takes --no-wait as a flag (the simulator makes no machines, so there is nothing to wait for)', async () => {
    const { email } = await createAccount(t);
    const res = await runCliIn(t.app, ['service:provision', '--email', email, '--type', 'vps', '--no-wait']);
    expect(res.code).toBe(0);
    expect(res.lines).toEqual([expect.objectContaining({ type: 'vps', instance: expect.objectContaining({ powerState: 'running' }) })]);
  });

  it('refuses bad input with a clear message and a non-zero exit', async () => {
    // Every rule through the CLI's runner inside the test app; two cases through the built CLI for a real process's exit codes.
    const { email: known } = await createAccount(t);
    const cases: [string[], number, string][] = [
      [['service:provision', '--email', 'nobody@example.test', '--type', 'vps'], 64, 'No account with email'],
      [['service:provision', '--email', known], 64, '--type is required'],
      [['service:provision', '--email', known, '--type', 'dedicated'], 65, 'type must be one of vps, object_storage'],
      [['service:provision', '--email', known, '--type', 'vps', '--count', '0'], 65, 'count must be a whole number'],
      [['service:provision', '--email', known, '--type', 'vps', '--count', '2.5'], 65, 'count must be a whole number'],
      [['service:provision', '--email', known, '--type', 'vps', '--status', 'running'], 65, 'status must be one of'],
      [['service:provision', '--email', known, '--type', 'vps', '--product', 'storage-250'], 65, 'not vps'],
      [['service:provision', '--email', known, '--type', 'vps', '--product', 'nope'], 65, 'No product with slug nope'],
      [['service:provision', '--email', known, '--type', 'object_storage', '--power-state', 'running'], 64, 'vps only'],
      [
        ['service:provision', '--email', known, '--type', 'vps', '--count', '2', '--provider-ref', 'web-1'],
        64,
        '--provider-ref adopts one existing machine',
      ],
      [['service:set-status', '--id', 'abc', '--status', 'active'], 65, 'id must be a service id (UUID)'],
      [['service:set-status', '--id', '00000000-0000-4000-8000-000000000000', '--status', 'active'], 65, 'not_found'],
      [['service:set-status', '--id', '00000000-0000-4000-8000-000000000000'], 64, '--status is required'],
      [['service:set-status', '--id', '00000000-0000-4000-8000-000000000000', '--colour', 'red'], 64, "Unknown option '--colour'"],
      [['service:provision', '--email', known, '--type', 'vps', '--no-wait=yes'], 64, 'does not take an argument'],
    ];
    for (const [args, code, message] of cases) {
      const res = await runCliIn(t.app, args);
      expect({ args, code: res.code, stdout: res.stdout }).toEqual({ args, code, stdout: '' });
      expect(res.stderr).toContain(message);
    }
    for (const [args, code, message] of [cases[10], cases[12]]) {
      const res = await cli(...args);
      expect({ args, code: res.code, stdout: res.stdout }).toEqual({ args, code, stdout: '' });
      expect(res.stderr).toContain(message);
    }
  });

  it('emits service.status_changed once per real change, with from, to and reason', async () => {
    const owner = await createAccount(t);
    const service = await createService(t, owner.id, { type: 'object_storage' });
    const events: any[] = [];
    const events2 = t.app.get(EventEmitter2);
    const listener = (event: unknown) => events.push(event);
    events2.on('service.status_changed', listener);
    try {
      const statuses = t.app.get(ServiceStatusService);
      const updated = await statuses.setStatus(service.id, 'suspended', 'Overdue invoice');
      expect(updated.status).toBe('suspended');
      await statuses.setStatus(service.id, 'suspended', 'again');
      expect(events).toEqual([
        {
          name: 'service.status_changed',
          accountId: owner.id,
          occurredAt: expect.any(Date),
          payload: { serviceId: service.id, serviceName: service.name, from: 'active', to: 'suspended', reason: 'Overdue invoice' },
        },
      ]);
      const list = await request(t.http).get('/api/services?status=suspended').set('Authorization', owner.bearer);
      expect(list.body.total).toBe(1);
    } finally {
      events2.off('service.status_changed', listener);
    }
  });

  // A terminated VPS's port or address goes back to the pool, so showing it would point at someone else's machine.
  it('a terminated VPS shows no SSH endpoint or address, in the service and the list, and its lease is freed', async () => {
    const owner = await createAccount(t);
    const vps = await createService(t, owner.id);
    expect(vps.instance!.ssh).toEqual({ host: vps.instance!.ipv4, port: 22, hostKeys: [] });
    // The simulator leases nothing itself: lease as NETWORK_MODE=user would, and show it as libvirt does.
    const lease = await t.app.get(TransactionRunner).run((m) => t.app.get(NetworkAllocator).allocate(m, vps.id, 'eu-central'));
    expect(lease.mode).toBe('user');
    if (lease.mode !== 'user') return;
    await t.db.query('UPDATE vps_instances SET ssh_host = $2, ssh_port = $3, ipv4 = NULL, ipv6 = NULL WHERE service_id = $1', [
      vps.id,
      lease.sshHost,
      lease.sshPort,
    ]);
    expect((await t.get(`/api/services/${vps.id}`, owner.bearer).expect(200)).body.instance.ssh).toEqual({
      host: lease.sshHost,
      port: lease.sshPort,
      hostKeys: [],
    });
    const leases = () => t.app.get(TransactionRunner).run((m) => t.app.get(NetworkLeasesRepository).valuesOf(m, vps.id));
    expect(await leases()).toHaveLength(1);

    const res = await runCliIn(t.app, ['service:set-status', '--id', vps.id, '--status', 'terminated']);
    expect(res.code).toBe(0);
    const gone = {
      powerState: 'stopped',
      ipv4: null,
      ipv6: null,
      region: vps.instance!.region,
      ssh: null,
      rescue: false,
      firewalls: [],
      volumes: [],
      addresses: [],
    };
    expect(res.lines[0]).toMatchObject({ status: 'terminated', instance: gone });
    expect((await t.get(`/api/services/${vps.id}`, owner.bearer).expect(200)).body.instance).toEqual(gone);
    const list = await t.get('/api/services?status=terminated', owner.bearer).expect(200);
    expect(list.body.data).toEqual([expect.objectContaining({ id: vps.id, instance: gone })]);
    expect(await leases()).toEqual([]);
  });

  it('a VPS terminated with its documentation address (the simulator) shows none either', async () => {
    const owner = await createAccount(t);
    const vps = await createService(t, owner.id);
    await t.app.get(ServiceStatusService).setStatus(vps.id, 'terminated');
    expect((await t.get(`/api/services/${vps.id}`, owner.bearer).expect(200)).body.instance).toMatchObject({
      ipv4: null,
      ipv6: null,
      ssh: null,
    });
  });

  // Terminated is final, so an object storage user never comes back with its old key.
  it('refuses to move a terminated service to any other status, and changes nothing', async () => {
    const owner = await createAccount(t);
    const storage = await createService(t, owner.id, { type: 'object_storage' });
    const credentials = `/api/services/${storage.id}/object-storage/credentials`;
    const key = (await t.get(credentials, owner.bearer).expect(200)).body.accessKeyId;
    expect(key).toEqual(expect.any(String));
    const terminated = await runCliIn(t.app, ['service:set-status', '--id', storage.id, '--status', 'terminated']);
    expect(terminated.code).toBe(0);
    expect(terminated.lines[0]).toMatchObject({ status: 'terminated', nextDueDate: null });
    for (const status of ['active', 'suspended', 'pending', 'cancelled']) {
      const res = await runCliIn(t.app, ['service:set-status', '--id', storage.id, '--status', status, '--reason', 'Paid after all']);
      expect({ status, code: res.code, stdout: res.stdout }).toEqual({ status, code: 65, stdout: '' });
      expect(res.stderr).toContain('invalid_state: The service is terminated');
    }
    await expect(t.app.get(ServiceStatusService).setStatus(storage.id, 'active')).rejects.toMatchObject({
      status: 409,
      code: 'invalid_state',
    });
    // Terminating again is no change (the command is safe to repeat).
    expect((await runCliIn(t.app, ['service:set-status', '--id', storage.id, '--status', 'terminated'])).code).toBe(0);
    const service = (await t.get(`/api/services/${storage.id}`, owner.bearer).expect(200)).body;
    expect(service).toMatchObject({ status: 'terminated', nextDueDate: null, objectStorage: { state: 'closed' } });
    expect((await t.get(credentials, owner.bearer).expect(409)).body.code).toBe('invalid_state');
    const changes = await t.db.query(`SELECT details FROM activity_events WHERE entity_id = $1 AND action = 'service.status_change'`, [
      storage.id,
    ]);
    expect(changes).toEqual([{ details: { from: 'active', to: 'terminated', reason: null } }]);
  });
});
