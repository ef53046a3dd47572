import { Module } from '@nestjs/common';
import { ServicesModule } from '@app/services';
import { ComputeModule } from '../compute/compute.module';
import { InstancesModule } from '../instances/instances.module';
import { VolumeActionJob } from './volume-action.job';
import { VolumeActionRunner } from './volume-action-runner';
import { VolumeKind } from './volume.kind';
import { VolumePurgeJob } from './volume-purge.job';
import { VolumeReconcileJob } from './volume-reconcile.job';
import { VolumesController } from './volumes.controller';
import { VolumesRepository } from './volumes.repository';
import { VolumesService } from './volumes.service';

/** Volumes: a kind of service, block storage that outlives a VPS and moves between them (VolumeBackend holds the bytes). */
@Module({
  imports: [ServicesModule, ComputeModule, InstancesModule],
  controllers: [VolumesController],
  providers: [VolumeKind, VolumesService, VolumesRepository, VolumeActionRunner, VolumeActionJob, VolumePurgeJob, VolumeReconcileJob],
  exports: [VolumesRepository, VolumePurgeJob],
})
export class VolumesModule {}
