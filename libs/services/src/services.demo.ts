import { Injectable } from '@nestjs/common';
import { AppConfig, DemoContext, DemoSeeder } from '@app/core';
import { InstanceActionsRepository } from '@app/vps';
import { ProvisionSpec, ServiceProvisioner } from './service-provisioner';

const DAY = 86_400_000;
const daysAgo = (days: number) => new Date(Date.now() - days * DAY);

/** The demo account's services: both types, several statuses, prices from the catalogue. */
@Injectable()
export class ServicesDemoSeeder extends DemoSeeder {
  readonly order = 200;

  constructor(
    private readonly provisioner: ServiceProvisioner,
    private readonly actions: InstanceActionsRepository,
    private readonly config: AppConfig,
  ) {
    super();
  }

  /** The simulator's demo images (ImagesDemoSeeder, run before); with libvirt, demo VPSes have none (no machines are made for them). */
  private image(slug: string): Pick<ProvisionSpec, 'image'> {
    return this.config.computeProvider === 'simulator' ? { image: slug } : {};
  }

  async seed({ accountId, manager }: DemoContext): Promise<void> {
    const specs: ProvisionSpec[] = [
      { type: 'vps', name: 'legacy-shop', productSlug: 'vps-xxl-2023', status: 'terminated', region: 'eu-west', createdAt: daysAgo(420) },
      { type: 'object_storage', name: 'old-archive', productSlug: 'storage-5000', status: 'cancelled', createdAt: daysAgo(300) },
      { type: 'vps', name: 'web-01', productSlug: 'vps-m', status: 'active', createdAt: daysAgo(190), ...this.image('debian-12') },
      { type: 'object_storage', name: 'backups', productSlug: 'storage-1000', status: 'active', createdAt: daysAgo(150) },
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
        type: 'object_storage',
        name: 'media-assets',
        productSlug: 'storage-250',
        billingCycle: 'annually',
        status: 'active',
        createdAt: daysAgo(60),
      },
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
      // A little power history, so the actions list is not empty.
      if (service.name === 'web-01') await this.actions.insertDemoHistory(manager, service.id);
    }
  }
}
