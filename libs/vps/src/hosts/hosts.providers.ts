import type { Provider } from '@nestjs/common';
import { AppConfig } from '@app/core';
import { LibvirtHostSetup } from '../compute/libvirt/libvirt-host-setup';
import { HostAddCommand } from './cli/host-add.command';
import { HostListCommand } from './cli/host-list.command';
import { HostRemoveCommand } from './cli/host-remove.command';
import { HostSetCommand } from './cli/host-set.command';
import { HostHealthJob } from './host-health.job';
import { HostPlacement } from './host-placement';
import { HostSetup, SimulatedHostSetup } from './host-setup';
import { HostsRepository } from './hosts.repository';
import { HostsService } from './hosts.service';

/** Many hypervisors per region (issue 40): the VpsModule's providers for hosts. */
export const HOSTS_PROVIDERS: Provider[] = [
  HostsRepository,
  HostsService,
  HostPlacement,
  HostHealthJob,
  HostAddCommand,
  HostListCommand,
  HostSetCommand,
  HostRemoveCommand,
  {
    provide: HostSetup,
    inject: [AppConfig, HostsRepository],
    useFactory: (config: AppConfig, hosts: HostsRepository): HostSetup =>
      config.computeProvider === 'libvirt' ? new LibvirtHostSetup(config, hosts) : new SimulatedHostSetup(),
  },
];
