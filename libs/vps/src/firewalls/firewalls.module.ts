import { Module } from '@nestjs/common';
import { AccountsModule } from '@app/accounts';
import { ComputeModule } from '../compute/compute.module';
import { InstancesModule } from '../instances/instances.module';
import { FirewallsController } from './firewalls.controller';
import { FirewallSyncJob } from './firewall-sync.job';
import { FirewallsRepository } from './firewalls.repository';
import { FirewallsService } from './firewalls.service';

/** Cloud firewalls: rule sets an account applies to its VPSes, enforced by their hypervisors (nwfilter). */
@Module({
  imports: [AccountsModule, ComputeModule, InstancesModule],
  controllers: [FirewallsController],
  providers: [FirewallsService, FirewallsRepository, FirewallSyncJob],
  exports: [FirewallsService],
})
export class FirewallsModule {}
