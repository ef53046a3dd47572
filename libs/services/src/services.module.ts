import { Module } from '@nestjs/common';
import { AccountsModule } from '@app/accounts';
import { ProductsModule } from '@app/products';
import { ServiceProvisionCommand } from './cli/service-provision.command';
import { ServiceSetStatusCommand } from './cli/service-set-status.command';
import { ServiceKinds } from './kinds/service-kinds';
import { ServiceOwnership } from './service-ownership';
import { ServiceProvisioner } from './service-provisioner';
import { ServiceStatusService } from './service-status.service';
import { ServicesController } from './services.controller';
import { ServicesRepository } from './services.repository';
import { ServicesService } from './services.service';

/**
 * The services row: billing status, ownership, the list and GET /api/services/{id}. What a
 * customer rents is a kind (VpsModule, ObjectStorageModule), which imports this module and
 * registers itself with ServiceKinds.
 */
@Module({
  imports: [AccountsModule, ProductsModule],
  controllers: [ServicesController],
  providers: [
    ServiceKinds,
    ServiceOwnership,
    ServicesRepository,
    ServicesService,
    ServiceProvisioner,
    ServiceStatusService,
    ServiceProvisionCommand,
    ServiceSetStatusCommand,
  ],
  exports: [ServiceKinds, ServiceOwnership, ServicesService, ServiceProvisioner, ServiceStatusService],
})
export class ServicesModule {}
