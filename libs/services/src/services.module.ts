import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ProductsModule } from '@app/products';
import { ServiceProvisionCommand } from './cli/service-provision.command';
import { ServiceSetStatusCommand } from './cli/service-set-status.command';
import { ServicesDemoSeeder } from './demo/services-demo.seeder';
import { ComputeProvider } from './instance/compute/compute-provider';
import { SimulatedComputeProvider } from './instance/compute/simulated-compute.provider';
import { ConsoleSession } from './instance/console/console-session.entity';
import { ConsoleService } from './instance/console/console.service';
import { InstanceActionRunner } from './instance/instance-action-runner';
import { InstanceAction } from './instance/instance-action.entity';
import { InstanceActionsService } from './instance/instance-actions.service';
import { InstanceController } from './instance/instance.controller';
import { VpsInstance } from './instance/vps-instance.entity';
import { VpsLookup } from './instance/vps-lookup';
import { ObjectStorageCredential } from './object-storage/object-storage-credential.entity';
import { ObjectStorageProvider } from './object-storage/object-storage-provider';
import { ObjectStorageController } from './object-storage/object-storage.controller';
import { ObjectStorageService } from './object-storage/object-storage.service';
import { SimulatedObjectStorageProvider } from './object-storage/simulated-object-storage.provider';
import { Service } from './service.entity';
import { ServiceOwnership } from './service-ownership';
import { ServiceProvisioner } from './service-provisioner';
import { ServiceStatusService } from './service-status.service';
import { ServicesController } from './services.controller';
import { ServicesRepository } from './services.repository';
import { ServicesService } from './services.service';

@Module({
  imports: [ProductsModule, TypeOrmModule.forFeature([Service, VpsInstance, InstanceAction, ConsoleSession, ObjectStorageCredential])],
  controllers: [ServicesController, InstanceController, ObjectStorageController],
  providers: [
    ServiceOwnership,
    ServicesRepository,
    ServicesService,
    ServiceProvisioner,
    ServiceStatusService,
    VpsLookup,
    InstanceActionsService,
    InstanceActionRunner,
    ConsoleService,
    ObjectStorageService,
    // Adapters: the simulators by default; a hypervisor or S3 backend replaces them here.
    { provide: ComputeProvider, useClass: SimulatedComputeProvider },
    { provide: ObjectStorageProvider, useClass: SimulatedObjectStorageProvider },
    ServiceProvisionCommand,
    ServiceSetStatusCommand,
    ServicesDemoSeeder,
  ],
  exports: [ServiceOwnership, ServiceProvisioner, ServiceStatusService, ConsoleService],
})
export class ServicesModule {}
