import { Module } from '@nestjs/common';
import { ServicesModule } from '@app/services';
import { ComputeModule } from '../compute/compute.module';
import { InstancesModule } from '../instances/instances.module';
import { ActionStart } from './action-start';
import { InstanceActionHandlers } from './instance-action-handlers';
import { InstanceActionHistory } from './instance-action-history';
import { InstanceActionOutcome } from './instance-action-outcome';
import { InstanceActionRunner } from './instance-action-runner';
import { InstanceActionJob } from './instance-action.job';
import { InstanceActionsRepository } from './instance-actions.repository';
import { InstanceActionsService } from './instance-actions.service';
import { PowerActions } from './power-actions';
import { RebuildAction } from './rebuild-action';

/**
 * Instance actions: requested under the service's lock, sent to the hypervisor by a durable job,
 * recorded when they end. The rooms that own a type register its handler (InstanceActionHandlers).
 */
@Module({
  imports: [ServicesModule, ComputeModule, InstancesModule],
  providers: [
    InstanceActionsRepository,
    InstanceActionsService,
    InstanceActionHistory,
    ActionStart,
    InstanceActionRunner,
    InstanceActionOutcome,
    InstanceActionJob,
    InstanceActionHandlers,
    PowerActions,
    RebuildAction,
  ],
  exports: [InstanceActionHandlers, InstanceActionsService, InstanceActionHistory, InstanceActionsRepository, InstanceActionJob],
})
export class ActionsModule {}
