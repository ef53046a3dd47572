import { Module } from '@nestjs/common';
import { SshKeysModule } from '@app/ssh-keys';
import { ActionsModule } from '../actions/actions.module';
import { BackupsModule } from '../backups/backups.module';
import { ComputeModule } from '../compute/compute.module';
import { HostsModule } from '../hosts/hosts.module';
import { ImageCatalogueModule } from '../images/image-catalogue.module';
import { InstancesModule } from '../instances/instances.module';
import { HOSTS_PROVIDERS } from './hosts.providers';
import { VpsRelocationsRepository } from './relocation/vps-relocations.repository';

/** The operator's hosts: `host:*` and `service:move`, health checks, moves and evacuations. */
@Module({
  imports: [SshKeysModule, ComputeModule, HostsModule, ImageCatalogueModule, InstancesModule, ActionsModule, BackupsModule],
  providers: HOSTS_PROVIDERS,
  exports: [VpsRelocationsRepository],
})
export class FleetModule {}
