import { Module } from '@nestjs/common';
import { ServicesModule } from '@app/services';
import { SshKeysModule } from '@app/ssh-keys';
import { ActionsModule } from '../actions/actions.module';
import { ComputeModule } from '../compute/compute.module';
import { HostsModule } from '../hosts/hosts.module';
import { ImageCatalogueModule } from '../images/image-catalogue.module';
import { InstancesModule } from '../instances/instances.module';
import { BackupImages } from './backup-images';
import { BackupCounters } from './backup-counters';
import { BackupRetirement } from './backup-retirement';
import { BackupStore } from './backup-store';
import { BackupsRepository } from './backups.repository';
import { BackupsService } from './backups.service';
import { BACKUP_PROVIDERS } from './backups.providers';
import { SnapshotAction } from './snapshots/snapshot-action';
import { SnapshotImages } from './snapshots/snapshot-images';

/** Copies of a VPS's disk: nightly backups off the hypervisor (restore registers its action) and snapshots as images. */
@Module({
  imports: [ServicesModule, SshKeysModule, ComputeModule, HostsModule, ImageCatalogueModule, InstancesModule, ActionsModule],
  providers: [...BACKUP_PROVIDERS, SnapshotImages, SnapshotAction],
  exports: [BackupStore, BackupsRepository, BackupsService, BackupRetirement, BackupCounters, BackupImages, SnapshotImages],
})
export class BackupsModule {}
