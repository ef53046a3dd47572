import { Injectable } from '@nestjs/common';
import { DemoContext, DemoSeeder } from '@app/core';
import { ProvisionSpec, ServiceProvisioner } from '@app/services';

const DAY = 86_400_000;
const daysAgo = (days: number) => new Date(Date.now() - days * DAY);

/** The demo account's object storage: a cancelled archive and two active stores. */
@Injectable()
export class ObjectStorageDemoSeeder extends DemoSeeder {
  readonly order = 201;

  constructor(private readonly provisioner: ServiceProvisioner) {
    super();
  }

  async seed({ accountId, manager }: DemoContext): Promise<void> {
    const specs: ProvisionSpec[] = [
      { type: 'object_storage', name: 'old-archive', productSlug: 'storage-5000', status: 'cancelled', createdAt: daysAgo(300) },
      { type: 'object_storage', name: 'backups', productSlug: 'storage-1000', status: 'active', createdAt: daysAgo(150) },
      {
        type: 'object_storage',
        name: 'media-assets',
        productSlug: 'storage-250',
        billingCycle: 'annually',
        status: 'active',
        createdAt: daysAgo(60),
      },
    ];
    for (const spec of specs) await this.provisioner.provisionIn(manager, accountId, spec);
  }
}
