import type { EntityManager } from 'typeorm';
import type { AppConfig } from '@app/core';
import type { ServiceProvisioner } from '@app/services';
import type { InstanceActionsRepository } from './actions/instance-actions.repository';
import { VpsDemoSeeder } from './vps.demo';

describe('VpsDemoSeeder', () => {
  function build(computeProvider: string, names: string[]): VpsDemoSeeder {
    const provisioner = {
      provisionIn: async (_m: EntityManager, _account: string, spec: { name: string; image?: string }) => {
        names.push(`${spec.name}${spec.image ? `@${spec.image}` : ''}`);
        return [{ id: spec.name, name: spec.name }];
      },
    } as unknown as ServiceProvisioner;
    const actions = { insertDemoHistory: async () => undefined } as unknown as InstanceActionsRepository;
    return new VpsDemoSeeder(provisioner, actions, { computeProvider } as AppConfig);
  }

  it('makes the simulator its demo VPSes, some built on the demo images', async () => {
    const names: string[] = [];
    const seeder = build('simulator', names);
    await seeder.seed({ accountId: 'a', manager: {} as EntityManager });
    expect(names).toEqual(expect.arrayContaining(['web-01@debian-12', 'db-primary@ubuntu-24.04', 'staging']));
  });

  it('makes none under libvirt, where a VPS shown must be a machine', async () => {
    const names: string[] = [];
    await build('libvirt', names).seed({ accountId: 'a', manager: {} as EntityManager });
    expect(names).toEqual([]);
  });
});
