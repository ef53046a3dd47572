import { Module } from '@nestjs/common';
import { ServicesModule } from '@app/services';
import { ComputeModule } from '../compute/compute.module';
import { InstancesModule } from '../instances/instances.module';
import { ConsoleConnections } from './console-connections';
import { ConsoleIssuer } from './console-issuer';
import { ConsoleProxy } from './console-proxy';
import { ConsoleRechecks } from './console-rechecks';
import { ConsoleSessionsRepository } from './console-sessions.repository';
import { ConsoleService } from './console.service';

/** The browser console: one-time URLs and the WebSocket proxy to the machine's VNC display. */
@Module({
  imports: [ServicesModule, ComputeModule, InstancesModule],
  providers: [ConsoleService, ConsoleIssuer, ConsoleSessionsRepository, ConsoleConnections, ConsoleProxy, ConsoleRechecks],
  exports: [ConsoleIssuer, ConsoleConnections],
})
export class ConsoleModule {}
