import type { Provider } from '@nestjs/common';
import { AppConfig } from '@app/core';
import { DeploymentIdentity } from '../compute/deployment-identity';
import { LibvirtHostSetup } from '../compute/libvirt/libvirt-host-setup';
import { LibvirtRelocation } from '../compute/libvirt/libvirt-relocation';
import { HostAddCommand } from './cli/host-add.command';
import { HostListCommand } from './cli/host-list.command';
import { HostRemoveCommand } from './cli/host-remove.command';
import { ServiceMoveCommand } from './cli/service-move.command';
import { HostSetCommand } from './cli/host-set.command';
import { HostHealthJob } from './host-health.job';
import { HostPlacement } from '../hosts/host-placement';
import { HostSetup, SimulatedHostSetup } from '../compute/host-setup';
import { HostsRepository } from '../hosts/hosts.repository';
import { HostsService } from './hosts.service';
import { MachineRelocator, SimulatedMachineRelocator } from '../compute/machine-relocator';
import { HostDrainCommand } from './cli/host-drain.command';
import { HostDrain } from './host-drain';
import { HostEvacuateCommand } from './cli/host-evacuate.command';
import { HostEvacuation } from './host-evacuation';
import { StaleMachines } from './stale-machines';
import { RelocatedVpsRepository } from './relocation/relocated-vps.repository';
import { RelocationDisk } from './relocation/relocation-disk';
import { RelocationMail } from './relocation/relocation-mail';
import { RelocationNetwork } from './relocation/relocation-network';
import { RelocationOutcome } from './relocation/relocation-outcome';
import { RelocationStart } from './relocation/relocation-start';
import { RelocationJob } from './relocation/relocation.job';
import { VpsRelocations } from './relocation/vps-relocations';
import { VpsRelocationsRepository } from './relocation/vps-relocations.repository';

/** Many hypervisors per region: the VpsModule's providers for hosts. */
export const HOSTS_PROVIDERS: Provider[] = [
  HostsRepository,
  HostsService,
  HostPlacement,
  HostHealthJob,
  HostAddCommand,
  HostListCommand,
  HostSetCommand,
  HostRemoveCommand,
  VpsRelocationsRepository,
  RelocatedVpsRepository,
  RelocationNetwork,
  RelocationDisk,
  RelocationStart,
  RelocationOutcome,
  RelocationJob,
  RelocationMail,
  VpsRelocations,
  ServiceMoveCommand,
  HostDrain,
  HostDrainCommand,
  HostEvacuation,
  HostEvacuateCommand,
  StaleMachines,
  {
    provide: MachineRelocator,
    inject: [AppConfig, HostsRepository, DeploymentIdentity],
    useFactory: (config: AppConfig, hosts: HostsRepository, identity: DeploymentIdentity): MachineRelocator =>
      config.computeProvider === 'libvirt' ? new LibvirtRelocation(config, hosts, identity) : new SimulatedMachineRelocator(),
  },
  {
    provide: HostSetup,
    inject: [AppConfig, HostsRepository],
    useFactory: (config: AppConfig, hosts: HostsRepository): HostSetup =>
      config.computeProvider === 'libvirt' ? new LibvirtHostSetup(config, hosts) : new SimulatedHostSetup(),
  },
];
