import { Module } from '@nestjs/common';
import { AccountsModule } from '@app/accounts';
import { AppConfig } from '@app/core';
import { DnsProvider } from './provider/dns-provider';
import { PowerDnsProvider } from './provider/powerdns.provider';
import { SimulatedDnsProvider } from './provider/simulated-dns.provider';
import { ReverseDns } from './reverse/reverse-dns';
import { RecordsController } from './records/records.controller';
import { RecordsRepository } from './records/records.repository';
import { RecordsService } from './records/records.service';
import { ZonesController } from './zones/zones.controller';
import { ZonesRepository } from './zones/zones.repository';
import { ZonesService } from './zones/zones.service';
import { DnsReconcileJob } from './zones/dns-reconcile.job';
import { ZoneSyncJob } from './zones/zone-sync.job';

function dnsProvider(config: AppConfig): DnsProvider {
  const { provider, powerDns, timeoutMs } = config.dns;
  return provider === 'powerdns' ? new PowerDnsProvider({ ...powerDns, timeoutMs }) : new SimulatedDnsProvider();
}

/** Customers' DNS zones and records, served by the provider's authoritative servers (PowerDNS). */
@Module({
  imports: [AccountsModule],
  controllers: [ZonesController, RecordsController],
  providers: [
    { provide: DnsProvider, useFactory: dnsProvider, inject: [AppConfig] },
    ZonesService,
    ZonesRepository,
    RecordsService,
    RecordsRepository,
    DnsReconcileJob,
    ZoneSyncJob,
    ReverseDns,
  ],
  exports: [DnsProvider, ReverseDns],
})
export class DnsModule {}
