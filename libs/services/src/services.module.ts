import { Module } from '@nestjs/common';
import { AccountsModule } from '@app/accounts';
import { AppConfig } from '@app/core';
import { ProductsModule } from '@app/products';
import { SshKeysModule } from '@app/ssh-keys';
import { ImageAddCommand } from './images/cli/image-add.command';
import { ImageRemoveCommand } from './images/cli/image-remove.command';
import { ImageStore, SimulatedImageStore } from './images/image-store';
import { ImagesController } from './images/images.controller';
import { ImagesDemoSeeder } from './images/images.demo';
import { ImagesRepository } from './images/images.repository';
import { ImagesService } from './images/images.service';
import { LibvirtImageStore } from './instance/compute/libvirt/libvirt-image-store';
import { GuestSetup } from './instance/guest-setup';
import { NetworkAllocator } from './instance/network/network-allocator';
import { NetworkLeasesRepository } from './instance/network/network-leases.repository';
import { ServiceProvisionCommand } from './cli/service-provision.command';
import { ServiceSetStatusCommand } from './cli/service-set-status.command';
import { ServicesDemoSeeder } from './services.demo';
import { ComputeProvider } from './instance/compute/compute-provider';
import { DeploymentIdentity } from './instance/compute/deployment-identity';
import { DeploymentIdentityRepository } from './instance/compute/deployment-identity.repository';
import { LibvirtComputeProvider } from './instance/compute/libvirt/libvirt-compute.provider';
import { SimulatedComputeProvider } from './instance/compute/simulated-compute.provider';
import { SimulatorTasksRepository } from './instance/compute/simulator-tasks.repository';
import { SimulatedVncServers } from './instance/compute/simulated-vnc-servers';
import { ConsoleConnections } from './instance/console/console-connections';
import { ConsoleIssuer } from './instance/console/console-issuer';
import { ConsoleProxy } from './instance/console/console-proxy';
import { ConsoleRechecks } from './instance/console/console-rechecks';
import { ConsoleSessionsRepository } from './instance/console/console-sessions.repository';
import { ConsoleService } from './instance/console/console.service';
import { ActionStart } from './instance/action-start';
import { InstanceActionHistory } from './instance/instance-action-history';
import { InstanceActionOutcome } from './instance/instance-action-outcome';
import { InstanceActionRunner } from './instance/instance-action-runner';
import { InstanceActionJob } from './instance/instance-action.job';
import { InstanceActionsRepository } from './instance/instance-actions.repository';
import { InstanceActionsService } from './instance/instance-actions.service';
import { InstanceController } from './instance/instance.controller';
import { MachineProvisioning } from './instance/machine-provisioning';
import { PowerStateReconcileJob } from './instance/power-state-reconcile.job';
import { PowerStateSync } from './instance/power-state-sync';
import { ProvisioningOutcome } from './instance/provisioning/provisioning-outcome';
import { ProvisioningResumeJob } from './instance/provisioning/provisioning-resume.job';
import { VpsProvisioningJob } from './instance/provisioning/vps-provisioning.job';
import { VpsProvisioningRepository } from './instance/provisioning/vps-provisioning.repository';
import { HypervisorOrphansRepository } from './instance/reconcile/hypervisor-orphans.repository';
import { MachineReconciler } from './instance/reconcile/machine-reconciler';
import { MissingMachines } from './instance/reconcile/missing-machines';
import { OrphanClaims } from './instance/reconcile/orphan-claims';
import { VpsInstancesRepository } from './instance/vps-instances.repository';
import { ObjectStorageProvider } from './object-storage/object-storage-provider';
import { ObjectStorageController } from './object-storage/object-storage.controller';
import { ObjectStorageCredentialsRepository } from './object-storage/object-storage-credentials.repository';
import { ObjectStorageKeys } from './object-storage/object-storage-keys';
import { ObjectStorageLifecycle } from './object-storage/object-storage-lifecycle';
import { ObjectStorageReconcileJob } from './object-storage/object-storage-reconcile.job';
import { ObjectStorageSync } from './object-storage/object-storage-sync';
import { ObjectStorageUsage } from './object-storage/object-storage-usage';
import { ObjectStorageUsersRepository } from './object-storage/object-storage-users.repository';
import { ObjectStorageService } from './object-storage/object-storage.service';
import { RgwObjectStorageProvider } from './object-storage/rgw/rgw-object-storage.provider';
import { SimulatedObjectStorageProvider } from './object-storage/simulated-object-storage.provider';
import { ServiceOwnership } from './service-ownership';
import { ServiceProvisioner } from './service-provisioner';
import { ServiceStatusService } from './service-status.service';
import { ServicesController } from './services.controller';
import { ServicesGauges } from './services-gauges';
import { ServicesRepository } from './services.repository';
import { ServicesService } from './services.service';

@Module({
  imports: [AccountsModule, ProductsModule, SshKeysModule],
  controllers: [ServicesController, InstanceController, ObjectStorageController, ImagesController],
  providers: [
    ServiceOwnership,
    ServicesGauges,
    ServicesRepository,
    ServicesService,
    ServiceProvisioner,
    ServiceStatusService,
    PowerStateSync,
    PowerStateReconcileJob,
    MachineProvisioning,
    VpsProvisioningRepository,
    VpsProvisioningJob,
    ProvisioningOutcome,
    ProvisioningResumeJob,
    HypervisorOrphansRepository,
    DeploymentIdentityRepository,
    DeploymentIdentity,
    OrphanClaims,
    MissingMachines,
    MachineReconciler,
    InstanceActionsRepository,
    VpsInstancesRepository,
    InstanceActionsService,
    InstanceActionHistory,
    ActionStart,
    InstanceActionRunner,
    InstanceActionOutcome,
    InstanceActionJob,
    ConsoleService,
    ConsoleIssuer,
    ConsoleSessionsRepository,
    ConsoleConnections,
    ConsoleProxy,
    ConsoleRechecks,
    SimulatedVncServers,
    SimulatorTasksRepository,
    ObjectStorageService,
    ObjectStorageKeys,
    ObjectStorageCredentialsRepository,
    ImagesRepository,
    ImagesService,
    GuestSetup,
    NetworkAllocator,
    NetworkLeasesRepository,
    {
      provide: ImageStore,
      inject: [AppConfig],
      useFactory: (config: AppConfig): ImageStore =>
        config.computeProvider === 'libvirt' ? new LibvirtImageStore(config) : new SimulatedImageStore(),
    },
    ObjectStorageUsersRepository,
    ObjectStorageSync,
    ObjectStorageLifecycle,
    ObjectStorageUsage,
    ObjectStorageReconcileJob,
    // Adapters: the simulators by default; COMPUTE_PROVIDER=libvirt drives real KVM/QEMU hosts.
    {
      provide: ComputeProvider,
      inject: [AppConfig, SimulatorTasksRepository, SimulatedVncServers, DeploymentIdentity],
      useFactory: (config: AppConfig, tasks: SimulatorTasksRepository, displays: SimulatedVncServers, identity: DeploymentIdentity) =>
        config.computeProvider === 'libvirt'
          ? new LibvirtComputeProvider(config, identity)
          : new SimulatedComputeProvider(tasks, config, displays),
    },
    {
      provide: ObjectStorageProvider,
      inject: [AppConfig],
      useFactory: (config: AppConfig): ObjectStorageProvider =>
        config.objectStorage.provider === 'rgw' ? new RgwObjectStorageProvider(config.objectStorage) : new SimulatedObjectStorageProvider(),
    },
    ServiceProvisionCommand,
    ServiceSetStatusCommand,
    ImageAddCommand,
    ImageRemoveCommand,
    ImagesDemoSeeder,
    ServicesDemoSeeder,
  ],
  exports: [ServiceOwnership, ServicesGauges],
})
export class ServicesModule {}
