import { Module } from '@nestjs/common';
import { ServicesModule } from '@app/services';
import { ActionsModule } from './actions/actions.module';
import { ServiceActionsCommand } from './actions/cli/service-actions.command';
import { BackupsController } from './backups/backups.controller';
import { BackupsModule } from './backups/backups.module';
import { ComputeModule } from './compute/compute.module';
import { ConsoleController } from './console/console.controller';
import { ConsoleModule } from './console/console.module';
import { FirewallsModule } from './firewalls/firewalls.module';
import { FleetModule } from './fleet/fleet.module';
import { HostsModule } from './hosts/hosts.module';
import { ImageCatalogueModule } from './images/image-catalogue.module';
import { InstanceController } from './instance.controller';
import { InstancesModule } from './instances/instances.module';
import { RdnsController } from './rdns/rdns.controller';
import { RdnsModule } from './rdns/rdns.module';
import { RescueController } from './rescue/rescue.controller';
import { RescueModule } from './rescue/rescue.module';
import { VpsKind } from './service-kind/vps.kind';
import { VpsTermination } from './service-kind/vps-termination';
import { VolumesModule } from './volumes/volumes.module';
import { VpsDemoSeeder } from './vps.demo';
import { VpsGauges } from './vps-gauges';

/**
 * The VPS area: its rooms are modules of their own, each exporting only what the others may
 * use; this one holds the routes on a VPS, the VPS's service kind and the area's gauges, on top of them all.
 */
@Module({
  imports: [
    ServicesModule,
    HostsModule,
    ComputeModule,
    ImageCatalogueModule,
    InstancesModule,
    ActionsModule,
    BackupsModule,
    RescueModule,
    ConsoleModule,
    FleetModule,
    FirewallsModule,
    VolumesModule,
    RdnsModule,
  ],
  // Nest registers routes, and the OpenAPI document lists paths, in this order.
  controllers: [InstanceController, ConsoleController, RescueController, BackupsController, RdnsController],
  providers: [VpsKind, VpsTermination, VpsDemoSeeder, VpsGauges, ServiceActionsCommand],
  exports: [VpsGauges, InstancesModule, ImageCatalogueModule],
})
export class VpsModule {}
