import { ServiceStatus, ServiceType } from '@app/services';
import { PowerState, publicPowerState, VpsProvisionSpec } from '@app/vps';
import { ServiceProvisioner } from '../../libs/services/src/service-provisioner';
import { ServiceResponse } from '../../libs/services/src/dto/service.response';
import { TestApp } from '../support/test-app';

export interface ServiceOptions extends Omit<VpsProvisionSpec, 'type' | 'powerState'> {
  type?: ServiceType;
  status?: ServiceStatus;
  /** Any power state, transitional ones included (set directly, as if an action were under way). */
  powerState?: PowerState;
}

/** Services for an account, made through the provisioner (catalogue prices, counters, instances). */
export async function createServices(
  t: TestApp,
  accountId: string,
  count: number,
  options: ServiceOptions = {},
): Promise<ServiceResponse[]> {
  const { powerState, ...spec } = options;
  const settled = powerState === 'running' || powerState === 'stopped' ? powerState : undefined;
  const services = await t.app.get(ServiceProvisioner).provision(accountId, { type: 'vps', ...spec, powerState: settled }, count);
  if (powerState && !settled) {
    await t.db.query('UPDATE vps_instances SET power_state = $2 WHERE service_id = ANY($1::uuid[])', [
      services.map((s) => s.id),
      powerState,
    ]);
    for (const service of services) service.instance!.powerState = publicPowerState(powerState);
  }
  return services;
}

export async function createService(t: TestApp, accountId: string, options: ServiceOptions = {}): Promise<ServiceResponse> {
  const [service] = await createServices(t, accountId, 1, options);
  return service;
}
