import type { Provider } from '@nestjs/common';
import { HostAddCommand } from './cli/host-add.command';
import { HostListCommand } from './cli/host-list.command';
import { HostRemoveCommand } from './cli/host-remove.command';
import { ServiceMoveCommand } from './cli/service-move.command';
import { HostSetCommand } from './cli/host-set.command';
import { HostHealthJob } from './host-health.job';
import { HostsService } from './hosts.service';
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

/** The operator's work on the hypervisors: adding and draining hosts, moving and evacuating VPSes. */
export const HOSTS_PROVIDERS: Provider[] = [
  HostsService,
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
];
