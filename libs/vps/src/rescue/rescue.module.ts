import { Module } from '@nestjs/common';
import { SshKeysModule } from '@app/ssh-keys';
import { ActionsModule } from '../actions/actions.module';
import { ComputeModule } from '../compute/compute.module';
import { ImageCatalogueModule } from '../images/image-catalogue.module';
import { InstancesModule } from '../instances/instances.module';
import { AccessMail } from './access-mail';
import { RescueAction, UnrescueAction } from './rescue-actions';
import { RescueExpiryJob } from './rescue-expiry.job';
import { RescueStart } from './rescue-start';
import { RescueService } from './rescue.service';
import { RootPasswordService } from './root-password/root-password.service';
import { VpsRescuesRepository } from './vps-rescues.repository';

/** Getting into a VPS one cannot log into: rescue mode (its actions registered here) and root password resets. */
@Module({
  imports: [SshKeysModule, ComputeModule, ImageCatalogueModule, InstancesModule, ActionsModule],
  providers: [
    RescueService,
    RescueStart,
    RescueExpiryJob,
    RescueAction,
    UnrescueAction,
    AccessMail,
    VpsRescuesRepository,
    RootPasswordService,
  ],
  exports: [RescueService, RootPasswordService, VpsRescuesRepository],
})
export class RescueModule {}
