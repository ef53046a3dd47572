import type { Provider } from '@nestjs/common';
import { AppConfig } from '@app/core';
import { DeploymentIdentity } from '../compute/deployment-identity';
import { LibvirtMove } from '../compute/libvirt/libvirt-move';
import { HostAddCommand } from './cli/host-add.command';
import { HostListCommand } from './cli/host-list.command';
import { HostRemoveCommand } from './cli/host-remove.command';
import { ServiceMoveCommand } from './cli/service-move.command';
import { HostSetCommand } from './cli/host-set.command';
import { HostHealthJob } from './host-health.job';
import { HostsRepository } from '../hosts/hosts.repository';
import { HostsService } from './hosts.service';
import { MachineMover, SimulatedMachineMover } from '../compute/machine-mover';
import { VpsMoves } from './vps-moves';
import { HostDrainCommand } from './cli/host-drain.command';
import { HostDrain } from './host-drain';
import { MoveMail } from './move-mail';
import { MoveNetwork } from './move-network';
import { MoveOutcome } from './move-outcome';
import { MoveStart } from './move-start';
import { VpsMoveJob } from './vps-move.job';
import { VpsMovesRepository } from './vps-moves.repository';
import { LibvirtEvacuation } from '../compute/libvirt/libvirt-evacuation';
import { HostEvacuateCommand } from './cli/host-evacuate.command';
import { EvacuatedDisks } from './evacuated-disks';
import { EvacuationEnd } from './evacuation-end';
import { EvacuationMail } from './evacuation-mail';
import { EvacuationStart } from './evacuation-start';
import { EvacuationTarget } from './evacuation-target';
import { MachineEvacuator, SimulatedMachineEvacuator } from '../compute/machine-evacuator';
import { StaleMachines } from './stale-machines';
import { VpsEvacuation } from './vps-evacuation';
import { VpsEvacuationsRepository } from './vps-evacuations.repository';

/** The operator's work on the hypervisors: adding and draining hosts, moving and evacuating VPSes. */
export const HOSTS_PROVIDERS: Provider[] = [
  HostsService,
  HostHealthJob,
  HostAddCommand,
  HostListCommand,
  HostSetCommand,
  HostRemoveCommand,
  VpsMoves,
  ServiceMoveCommand,
  VpsMovesRepository,
  MoveNetwork,
  MoveOutcome,
  MoveStart,
  VpsMoveJob,
  MoveMail,
  HostDrain,
  HostDrainCommand,
  {
    provide: MachineMover,
    inject: [AppConfig, HostsRepository, DeploymentIdentity],
    useFactory: (config: AppConfig, hosts: HostsRepository, identity: DeploymentIdentity): MachineMover =>
      config.computeProvider === 'libvirt' ? new LibvirtMove(config, hosts, identity) : new SimulatedMachineMover(),
  },
  VpsEvacuationsRepository,
  EvacuationTarget,
  EvacuatedDisks,
  EvacuationStart,
  EvacuationEnd,
  VpsEvacuation,
  StaleMachines,
  EvacuationMail,
  HostEvacuateCommand,
  {
    provide: MachineEvacuator,
    inject: [AppConfig, DeploymentIdentity],
    useFactory: (config: AppConfig, identity: DeploymentIdentity): MachineEvacuator =>
      config.computeProvider === 'libvirt' ? new LibvirtEvacuation(config, identity) : new SimulatedMachineEvacuator(),
  },
];
