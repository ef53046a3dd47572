import { Injectable } from '@nestjs/common';
import { AppConfig, DemoContext, DemoSeeder } from '@app/core';
import { ServiceProvisioner } from '@app/services';
import { InstanceActionsRepository } from './instance-actions.repository';
import { VpsProvisionSpec } from './kind/vps-provision-spec';

const DAY = 86_400_000;
const daysAgo = (days: number) => new Date(Date.now() - days * DAY);

/** The demo account's VPSes: several statuses, prices from the catalogue, a little power history. */
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

  /** The simulator's demo images (ImagesDemoSeeder, run before); with libvirt, demo VPSes have none (no machines are made for them). */
  private image(slug: string): Pick<VpsProvisionSpec, 'image'> {
    return this.config.computeProvider === 'simulator' ? { image: slug } : {};
  }

  async seed({ accountId, manager }: DemoContext): Promise<void> {
    const specs: VpsProvisionSpec[] = [
      { type: 'vps', name: 'legacy-shop', productSlug: 'vps-xxl-2023', status: 'terminated', region: 'eu-west', createdAt: daysAgo(420) },
      { type: 'vps', name: 'web-01', productSlug: 'vps-m', status: 'active', createdAt: daysAgo(190), ...this.image('debian-12') },
      {
        type: 'vps',
        name: 'db-primary',
        productSlug: 'vps-l',
        billingCycle: 'annually',
        status: 'active',
        createdAt: daysAgo(120),
        ...this.image('ubuntu-24.04'),
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
  }
}
