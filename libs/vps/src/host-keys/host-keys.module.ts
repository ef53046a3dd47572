import { Module } from '@nestjs/common';
import { HostKeysRepository } from './host-keys.repository';
import { VpsHostKeys } from './vps-host-keys';

/** The SSH host keys the API gives each VPS and its rescue system. */
@Module({
  providers: [HostKeysRepository, VpsHostKeys],
  exports: [VpsHostKeys],
})
export class HostKeysModule {}
