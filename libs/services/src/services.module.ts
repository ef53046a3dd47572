import { Module } from '@nestjs/common';
import { AccountsModule } from '@app/accounts';
import { AppConfig } from '@app/core';
import { ProductsModule } from '@app/products';
import { SshKeysModule } from '@app/ssh-keys';
import {
  ImageAddCommand,
  ImageRemoveCommand,
  ImageStore,
  SimulatedImageStore,
  ImagesController,
  ImagesDemoSeeder,
  ImagesRepository,
  ImagesService,
  LibvirtImageStore,
  GuestSetup,
  NetworkAllocator,
  NetworkLeasesRepository,
  ComputeProvider,
  LibvirtComputeProvider,
  SimulatedComputeProvider,
  SimulatorTasksRepository,
  SimulatedVncServers,
  ConsoleConnections,
  ConsoleIssuer,
  ConsoleProxy,
  ConsoleRechecks,
  ConsoleSessionsRepository,
  ConsoleService,
  ActionStart,
  InstanceActionHistory,
  InstanceActionOutcome,
  InstanceActionRunner,
  InstanceActionJob,
  InstanceActionsRepository,
  InstanceActionsService,
  InstanceController,
  MachineProvisioning,
  PowerStateReconcileJob,
  PowerStateSync,
  ProvisioningOutcome,
  ProvisioningResumeJob,
  VpsProvisioningJob,
  VpsProvisioningRepository,
  HypervisorOrphansRepository,
  MachineReconciler,
  MissingMachines,
  VpsInstancesRepository,
  ServicesGauges,
} from '@app/vps';
import { ServiceProvisionCommand } from './cli/service-provision.command';
import { ServiceSetStatusCommand } from './cli/service-set-status.command';
import { ServicesDemoSeeder } from './services.demo';
import {
  ObjectStorageProvider,
  ObjectStorageController,
  ObjectStorageCredentialsRepository,
  ObjectStorageKeys,
  ObjectStorageLifecycle,
  ObjectStorageReconcileJob,
  ObjectStorageSync,
  ObjectStorageUsage,
  ObjectStorageUsersRepository,
  ObjectStorageService,
  RgwObjectStorageProvider,
  SimulatedObjectStorageProvider,
} from '@app/object-storage';
import { ServiceOwnership } from './service-ownership';
import { ServiceProvisioner } from './service-provisioner';
import { ServiceStatusService } from './service-status.service';
import { ServicesController } from './services.controller';
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
      inject: [AppConfig, SimulatorTasksRepository, SimulatedVncServers],
      useFactory: (config: AppConfig, tasks: SimulatorTasksRepository, displays: SimulatedVncServers): ComputeProvider =>
        config.computeProvider === 'libvirt' ? new LibvirtComputeProvider(config) : new SimulatedComputeProvider(tasks, config, displays),
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
