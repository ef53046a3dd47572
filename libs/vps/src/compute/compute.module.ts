import { Module } from '@nestjs/common';
import { AppConfig } from '@app/core';
import { HostsModule } from '../hosts/hosts.module';
import { HostsRepository } from '../hosts/hosts.repository';
import { ComputeProvider } from './compute-provider';
import { DeploymentIdentity } from './deployment-identity';
import { DeploymentIdentityRepository } from './deployment-identity.repository';
import { GuestFirewalls } from './guest-firewalls';
import { HostSetup, SimulatedHostSetup } from './host-setup';
import { ImageStore, SimulatedImageStore } from './image-store';
import { MachineRelocator, SimulatedMachineRelocator } from './machine-relocator';
import { LibvirtComputeProvider } from './libvirt/libvirt-compute.provider';
import { LibvirtHostSetup } from './libvirt/libvirt-host-setup';
import { LibvirtImageStore } from './libvirt/libvirt-image-store';
import { LibvirtParts } from './libvirt/libvirt-parts';
import { LibvirtRelocation } from './libvirt/libvirt-relocation';
import { SimulatedComputeProvider } from './simulated-compute.provider';
import { SimulatedVncServers } from './simulated-vnc/simulated-vnc-servers';
import { SimulatorTasksRepository } from './simulator-tasks.repository';

/**
 * The hypervisors behind ports: the simulator by default, real KVM/QEMU hosts with
 * COMPUTE_PROVIDER=libvirt. Other rooms inject the ports, never an adapter.
 */
@Module({
  imports: [HostsModule],
  providers: [
    SimulatorTasksRepository,
    SimulatedVncServers,
    DeploymentIdentityRepository,
    DeploymentIdentity,
    GuestFirewalls,
    {
      // Built once, when COMPUTE_PROVIDER=libvirt: every libvirt adapter stands on it.
      provide: LibvirtParts,
      inject: [AppConfig, DeploymentIdentity, HostsRepository, GuestFirewalls],
      useFactory: (
        config: AppConfig,
        identity: DeploymentIdentity,
        hosts: HostsRepository,
        firewalls: GuestFirewalls,
      ): LibvirtParts | null => (config.computeProvider === 'libvirt' ? new LibvirtParts(config, identity, hosts, firewalls) : null),
    },
    {
      provide: ComputeProvider,
      inject: [LibvirtParts, AppConfig, SimulatorTasksRepository, SimulatedVncServers],
      useFactory: (
        libvirt: LibvirtParts | null,
        config: AppConfig,
        tasks: SimulatorTasksRepository,
        displays: SimulatedVncServers,
      ): ComputeProvider => (libvirt ? new LibvirtComputeProvider(libvirt) : new SimulatedComputeProvider(tasks, config, displays)),
    },
    {
      provide: ImageStore,
      inject: [LibvirtParts],
      useFactory: (libvirt: LibvirtParts | null): ImageStore => (libvirt ? new LibvirtImageStore(libvirt) : new SimulatedImageStore()),
    },
    {
      provide: MachineRelocator,
      inject: [LibvirtParts],
      useFactory: (libvirt: LibvirtParts | null): MachineRelocator =>
        libvirt ? new LibvirtRelocation(libvirt) : new SimulatedMachineRelocator(),
    },
    {
      provide: HostSetup,
      inject: [LibvirtParts],
      useFactory: (libvirt: LibvirtParts | null): HostSetup => (libvirt ? new LibvirtHostSetup(libvirt) : new SimulatedHostSetup()),
    },
  ],
  exports: [ComputeProvider, ImageStore, HostSetup, MachineRelocator, DeploymentIdentity, GuestFirewalls],
})
export class ComputeModule {}
