import { Injectable } from '@nestjs/common';
import { AppConfig, DemoContext, DemoSeeder } from '@app/core';
import { ServiceProvisioner } from '@app/services';
import { InstanceActionsRepository } from './actions/instance-actions.repository';
import { VpsProvisionSpec } from './service-kind/vps-provision-spec';
import type { VolumeProvisionSpec } from './volumes/volume-provision-spec';

const DAY = 86_400_000;
const daysAgo = (days: number) => new Date(Date.now() - days * DAY);

/**
 * The simulator's demo VPSes: several statuses, prices from the catalogue, a little power history;
 * and a volume, detached.
 * Under libvirt there are none: a VPS the database shows must be a machine on the hypervisor, and
 * demo rows have none (they showed `running`, then failed every action with not_found).
 */
@Injectable()
export class VpsDemoSeeder extends DemoSeeder {
  readonly order = 200;

  constructor(
    private readonly provisioner: ServiceProvisioner,
    private readonly actions: InstanceActionsRepository,
    private readonly config: AppConfig,
  ) {
    super();
  }

  async seed({ accountId, manager }: DemoContext): Promise<void> {
    if (this.config.computeProvider !== 'simulator') return;
    const specs: VpsProvisionSpec[] = [
      { type: 'vps', name: 'legacy-shop', productSlug: 'vps-xxl-2023', status: 'terminated', region: 'eu-west', createdAt: daysAgo(420) },
      { type: 'vps', name: 'web-01', productSlug: 'vps-m', status: 'active', createdAt: daysAgo(190), image: 'debian-12' },
      {
        type: 'vps',
        name: 'db-primary',
        productSlug: 'vps-l',
        billingCycle: 'annually',
        status: 'active',
        createdAt: daysAgo(120),
        image: 'ubuntu-24.04',
      },
      { type: 'vps', name: 'ci-runner', productSlug: 'vps-xl', status: 'suspended', region: 'us-east', createdAt: daysAgo(95) },
      {
        type: 'vps',
        name: 'staging',
        productSlug: 'vps-s',
        billingCycle: 'hourly',
        status: 'active',
        powerState: 'stopped',
        createdAt: daysAgo(21),
      },
      { type: 'vps', name: 'vpn-gateway', productSlug: 'vps-xs', status: 'pending', region: 'eu-west', createdAt: daysAgo(0) },
    ];
    for (const spec of specs) {
      const [service] = await this.provisioner.provisionIn(manager, accountId, spec);
      if (service.name === 'web-01') await this.actions.insertDemoHistory(manager, service.id);
    }
    const volume: VolumeProvisionSpec = { type: 'volume', name: 'db-data', sizeGb: 100, status: 'active', createdAt: daysAgo(60) };
    await this.provisioner.provisionIn(manager, accountId, volume);
  }
}
