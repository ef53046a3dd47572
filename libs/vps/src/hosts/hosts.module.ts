import { Module } from '@nestjs/common';
import { HostPlacement } from './host-placement';
import { HostsRepository } from './hosts.repository';

/** The hypervisors on record and where a new VPS goes: the room every other VPS room stands on. */
@Module({
  providers: [HostsRepository, HostPlacement],
  exports: [HostsRepository, HostPlacement],
})
export class HostsModule {}
