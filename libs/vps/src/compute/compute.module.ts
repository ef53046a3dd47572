import { Module } from '@nestjs/common';
import { AppConfig } from '@app/core';
import { HostsModule } from '../hosts/hosts.module';
import { HostsRepository } from '../hosts/hosts.repository';
import { ComputeProvider } from './compute-provider';
import { DeploymentIdentity } from './deployment-identity';
import { DeploymentIdentityRepository } from './deployment-identity.repository';
import { ImageStore, SimulatedImageStore } from './image-store';
import { LibvirtComputeProvider } from './libvirt/libvirt-compute.provider';
import { LibvirtImageStore } from './libvirt/libvirt-image-store';
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
    {
      provide: ComputeProvider,
      inject: [AppConfig, SimulatorTasksRepository, SimulatedVncServers, DeploymentIdentity, HostsRepository],
      useFactory: (
        config: AppConfig,
        tasks: SimulatorTasksRepository,
        displays: SimulatedVncServers,
        identity: DeploymentIdentity,
        hosts: HostsRepository,
      ) =>
        config.computeProvider === 'libvirt'
          ? new LibvirtComputeProvider(config, identity, hosts)
          : new SimulatedComputeProvider(tasks, config, displays),
    },
    {
      provide: ImageStore,
      inject: [AppConfig, HostsRepository],
      useFactory: (config: AppConfig, hosts: HostsRepository): ImageStore =>
        config.computeProvider === 'libvirt' ? new LibvirtImageStore(config, hosts) : new SimulatedImageStore(),
    },
  ],
  exports: [ComputeProvider, ImageStore, DeploymentIdentity],
})
export class ComputeModule {}
