import { Module } from '@nestjs/common';
import { DnsModule } from '@app/dns';
import { PtrSyncJob } from './ptr-sync.job';
import { PtrsRepository } from './ptrs.repository';
import { RdnsService } from './rdns.service';

/** Reverse DNS of VPS addresses: the PTRs customers set, written to the provider's reverse zones by the DNS area. */
@Module({
  imports: [DnsModule],
  providers: [RdnsService, PtrsRepository, PtrSyncJob],
  exports: [RdnsService],
})
export class RdnsModule {}
