import { DataSource } from 'typeorm';
import { ObjectStorageModule } from '@app/object-storage';
import { ComputeProvider, ComputeProviderError, VpsModule } from '@app/vps';
import { ServiceProvisioner } from '../../libs/services/src/service-provisioner';
import { ServicesService } from '../../libs/services/src/services.service';
import { VpsStates } from '../../libs/vps/src/instances/vps-states';
import { startTestModule, TestModule } from '../support/test-module';
import { FakeCompute } from './fake-compute';

describe('ServiceProvisioner (TestingModule on the real database, a fake hypervisor)', () => {
  let m: TestModule;
  let provisioner: ServiceProvisioner;
  let compute: FakeCompute;
  beforeAll(async () => {
    compute = new FakeCompute();
    m = await startTestModule([VpsModule, ObjectStorageModule], {}, [{ provide: ComputeProvider, useValue: compute }]);
    provisioner = m.get(ServiceProvisioner);
  });
  afterAll(() => m.close());
  beforeEach(() => {
    compute.created.length = 0;
    compute.destroyed.length = 0;
    compute.machineLimit = Infinity;
    compute.createFailures.length = 0;
  });

  it('answers with exactly what the API then reads back, prices from the catalogue', async () => {
    const accountId = await m.accountId();
    const made = [
      ...(await provisioner.provision(accountId, { type: 'vps', productSlug: 'vps-m', name: 'web' }, 2)),
      ...(await provisioner.provision(accountId, { type: 'object_storage', status: 'cancelled', billingCycle: 'annually' })),
    ];
    expect(made.map((s) => s.name)).toEqual(['web-1', 'web-2', expect.stringMatching(/^storage-/)]);
    expect(made[0]).toMatchObject({
      type: 'vps',
      status: 'active',
      billingCycle: 'monthly',
      instance: { powerState: 'running', region: 'eu-central' },
    });
    expect(made[2]).toMatchObject({ status: 'cancelled', billingCycle: 'annually', nextDueDate: null, instance: null });
    const services = m.get(ServicesService);
    for (const service of made) expect(await services.get(accountId, service.id)).toEqual(service);
    expect(compute.created).toEqual([]);
  });

  it('makes one machine per VPS when asked, through its provisioning job, and records its reference and state', async () => {
    const accountId = await m.accountId();
    const made = await provisioner.provision(accountId, { type: 'vps', powerState: 'stopped', machines: true }, 2);
    expect(compute.created).toEqual(made.map((s) => `vm-${s.id}`));
    for (const service of made) {
      expect(service.instance?.powerState).toBe('stopped');
      expect(await m.get(VpsStates).forAccount(accountId, service.id)).toMatchObject({
        providerRef: `vm-${service.id}`,
        powerState: 'stopped',
      });
    }
  });

  it('answers the operator with a failure when a machine cannot be made, removes what it made, and keeps the service in error', async () => {
    const accountId = await m.accountId();
    compute.createFailures.push(new ComputeProviderError('hypervisor_error', 'The hypervisor refused the request.'));
    await expect(provisioner.provision(accountId, { type: 'vps', machines: true })).rejects.toMatchObject({
      status: 409,
      code: 'invalid_state',
      detail: expect.stringContaining('hypervisor_error: The hypervisor refused the request.'),
    });
    const [service] = (await m.get(ServicesService).list(accountId, { page: 1, pageSize: 10 })).data;
    // Customers see DESIGN.md's four states: the machine that could not be made is stopped.
    expect(service.instance?.powerState).toBe('stopped');
    expect(
      (await m.get(DataSource).query('SELECT power_state FROM vps_instances WHERE service_id = $1', [service.id]))[0].power_state,
    ).toBe('error');
    expect(compute.created).toEqual([]);
    expect(compute.destroyed).toEqual([`vm-${service.id}`]);
  });

  it('writes nothing and makes nothing when the rows cannot be written', async () => {
    const accountId = await m.accountId();
    await expect(provisioner.provision(accountId, { type: 'vps', machines: true, name: 'x'.repeat(101) })).rejects.toThrow();
    expect(compute.created).toEqual([]);
    expect((await m.get(ServicesService).list(accountId, { page: 1, pageSize: 10 })).total).toBe(0);
  });

  it('adopts an existing machine once: a second service for it is refused, and the machine is kept', async () => {
    const accountId = await m.accountId();
    const [adopted] = await provisioner.provision(accountId, { type: 'vps', providerRef: 'legacy-web' });
    expect(await m.get(VpsStates).forAccount(accountId, adopted.id)).toMatchObject({ providerRef: 'legacy-web' });
    await expect(provisioner.provision(accountId, { type: 'vps', providerRef: 'legacy-web' })).rejects.toMatchObject({
      status: 409,
      code: 'invalid_state',
    });
    await expect(provisioner.provision(accountId, { type: 'vps', providerRef: 'legacy-db' }, 2)).rejects.toMatchObject({ status: 400 });
    expect(compute.destroyed).toEqual([]);
  });

  it('refuses a product of another type, an unknown product and a count out of range', async () => {
    const accountId = await m.accountId();
    await expect(provisioner.provision(accountId, { type: 'vps', productSlug: 'storage-250' })).rejects.toMatchObject({ status: 400 });
    await expect(provisioner.provision(accountId, { type: 'vps', productSlug: 'nope' })).rejects.toMatchObject({ status: 400 });
    await expect(provisioner.provision(accountId, { type: 'vps' }, 0)).rejects.toMatchObject({ status: 400 });
  });
});
