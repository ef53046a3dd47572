import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { AppConfig } from '@app/core';
import { DnsProvider } from '../provider/dns-provider';
import { nextSerial, soaSet } from '../zones/zone-sets';
import { ZoneRow, ZonesRepository } from '../zones/zones.repository';
import { poolZones, ptrPlace } from './reverse-zones';

const PTR_TTL = 3600;

/**
 * The provider's reverse zones (RFC 2317 for pools smaller than a /24, nibble zones for IPv6) and
 * the PTRs in them, written for the VPS area, which keeps each address's PTR. Reverse zones are
 * rows of `dns_zones` of no account, for their serials; they hold no records there.
 */
@Injectable()
export class ReverseDns {
  private readonly onServers = new Set<string>();

  constructor(
    private readonly zones: ZonesRepository,
    private readonly provider: DnsProvider,
    private readonly config: AppConfig,
  ) {}

  /** Writes the address's PTR (null: none), in the caller's transaction; a server that does not answer throws DnsUnavailable. */
  async publish(m: EntityManager, address: string, ptr: string | null): Promise<void> {
    const place = ptrPlace(address, this.config.network.ipv4Pools);
    const zone = await this.reverseZone(m, place.zone);
    const serial = nextSerial(Number(zone.serial));
    await this.zones.setSerial(m, zone.id, serial);
    try {
      await this.provider.replaceRecordSets(`${place.zone}.`, [
        { name: `${place.name}.`, type: 'PTR', ttl: PTR_TTL, contents: ptr ? [`${ptr}.`] : [] },
        soaSet(place.zone, this.config.dns.nameservers, serial),
      ]);
    } catch (err) {
      this.onServers.delete(place.zone);
      throw err;
    }
  }

  /** The reverse zones of NETWORK_IPV4_POOL and NETWORK_IPV6_POOL, made on the servers where missing. */
  async ensurePoolZones(run: (work: (m: EntityManager) => Promise<void>) => Promise<void>): Promise<string[]> {
    const zones = poolZones(this.config.network.ipv4Pools, this.config.network.ipv6Pool);
    for (const zone of zones) await run((m) => this.reverseZone(m, zone).then(() => undefined));
    return zones;
  }

  private async reverseZone(m: EntityManager, name: string): Promise<ZoneRow> {
    const zone = await this.zones.providerZone(m, name, nextSerial(0));
    if (!this.onServers.has(name)) {
      if (!(await this.provider.recordSets(`${name}.`))) {
        const { nameservers } = this.config.dns;
        await this.provider.createZone(`${name}.`, nameservers, soaSet(name, nameservers, Number(zone.serial)));
      }
      this.onServers.add(name);
    }
    return zone;
  }
}
