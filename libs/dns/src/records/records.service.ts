import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { AppConfig, PageQuery, paginated, Paginated, Principal, Problem } from '@app/core';
import { CreateRecordRequest, UpdateRecordRequest } from '../dto/record.request';
import { RecordResponse } from '../dto/record.response';
import { ZoneResponse } from '../dto/zone.response';
import { DnsProvider } from '../provider/dns-provider';
import { formatZoneFile } from '../zone-file/zone-file-writer';
import { parseZoneFile } from '../zone-file/zone-file-parser';
import { changedSets, soaOf, soaSet } from '../zones/zone-sets';
import { ZoneRow } from '../zones/zones.repository';
import { ZonesService } from '../zones/zones.service';
import { DnsRecordData } from './dns-record';
import { checkRecord, checkRecordSet } from './record-rules';
import { RecordRow, RecordsRepository } from './records.repository';

const sameSet = (a: DnsRecordData, b: DnsRecordData) => a.name === b.name && a.type === b.type;
const data = ({ name, type, ttl, value, priority, weight, port }: DnsRecordData): DnsRecordData => ({
  name,
  type,
  ttl,
  value,
  priority,
  weight,
  port,
});

/**
 * A zone's records. Each change is checked against the whole zone as it would be after it, written
 * to the database, then sent to the DNS servers with the zone's next serial in one request, all
 * in the transaction that holds the zone's row: a server that refuses or does not answer leaves
 * nothing changed.
 */
@Injectable()
export class RecordsService {
  constructor(
    private readonly records: RecordsRepository,
    private readonly zones: ZonesService,
    private readonly provider: DnsProvider,
    private readonly config: AppConfig,
  ) {}

  async list(accountId: string, zoneId: string, query: PageQuery): Promise<Paginated<RecordResponse>> {
    await this.zones.owned(accountId, zoneId);
    const { rows, total } = await this.records.pageOfZone(zoneId, query);
    return paginated(rows.map(RecordResponse.from), query, total);
  }

  async get(accountId: string, zoneId: string, id: string): Promise<RecordResponse> {
    await this.zones.owned(accountId, zoneId);
    return RecordResponse.from(await this.found(zoneId, id));
  }

  async create(caller: Principal, zoneId: string, input: CreateRecordRequest): Promise<RecordResponse> {
    const id = await this.zones.change(caller, zoneId, async (m, zone) => {
      const record = checkRecord(zone.name, input);
      const before = await this.records.ofZone(zoneId, m);
      const { recordsPerZone } = this.config.dns;
      if (before.length >= recordsPerZone)
        throw Problem.conflict('quota_exceeded', `A zone can have at most ${recordsPerZone} records; delete one first.`);
      const after = [...before.map((r) => (sameSet(r, record) ? { ...r, ttl: record.ttl } : r)), record];
      checkRecordSet(zone.name, after);
      const [made] = await this.records.insert(m, zoneId, [record]);
      await this.records.setSetTtl(m, zoneId, record.name, record.type, record.ttl);
      await this.publish(m, zone, before, after);
      await this.zones.record(m, caller, 'dns_record.create', zoneId, { recordId: made, ...this.summary(zone, record) });
      return made;
    });
    return this.get(caller.accountId, zoneId, id);
  }

  async update(caller: Principal, zoneId: string, id: string, input: UpdateRecordRequest): Promise<RecordResponse> {
    await this.zones.change(caller, zoneId, async (m, zone) => {
      const stored = await this.found(zoneId, id, m);
      const retyped = input.type !== undefined && input.type !== stored.type;
      const base = retyped ? { ...data(stored), priority: null, weight: null, port: null } : data(stored);
      const record = checkRecord(zone.name, { ...base, ...this.defined(input) });
      const before = await this.records.ofZone(zoneId, m);
      const after = before.map((r) => (r.id === id ? { ...record, id } : sameSet(r, record) ? { ...r, ttl: record.ttl } : r));
      checkRecordSet(zone.name, after);
      await this.records.update(m, id, record);
      await this.records.setSetTtl(m, zoneId, record.name, record.type, record.ttl);
      await this.publish(m, zone, before, after);
      await this.zones.record(m, caller, 'dns_record.update', zoneId, { recordId: id, ...this.summary(zone, record) });
    });
    return this.get(caller.accountId, zoneId, id);
  }

  async remove(caller: Principal, zoneId: string, id: string): Promise<void> {
    await this.zones.change(caller, zoneId, async (m, zone) => {
      const stored = await this.found(zoneId, id, m);
      const before = await this.records.ofZone(zoneId, m);
      await this.records.delete(m, id);
      await this.publish(
        m,
        zone,
        before,
        before.filter((r) => r.id !== id),
      );
      await this.zones.record(m, caller, 'dns_record.delete', zoneId, { recordId: id, ...this.summary(zone, stored) });
    });
  }

  /** Replaces every record of the zone by the file's (all or nothing); the SOA and the provider's NS are the API's. */
  async import(caller: Principal, zoneId: string, text: string): Promise<ZoneResponse> {
    await this.zones.change(caller, zoneId, async (m, zone) => {
      const { records } = parseZoneFile(zone.name, text, this.config.dns.nameservers);
      const { recordsPerZone } = this.config.dns;
      if (records.length > recordsPerZone)
        throw Problem.conflict('quota_exceeded', `A zone can have at most ${recordsPerZone} records; the file has ${records.length}.`);
      const before = await this.records.ofZone(zoneId, m);
      await this.records.deleteAllOfZone(m, zoneId);
      await this.records.insert(m, zoneId, records);
      await this.publish(m, zone, before, records);
      await this.zones.record(m, caller, 'dns_zone.import', zoneId, { name: zone.name, records: records.length });
    });
    return this.zones.get(caller.accountId, zoneId);
  }

  async export(accountId: string, zoneId: string): Promise<string> {
    const zone = await this.zones.owned(accountId, zoneId);
    const { nameservers } = this.config.dns;
    const records = await this.records.ofZone(zoneId);
    return formatZoneFile(zone.name, soaOf(nameservers, Number(zone.serial)), nameservers, records.map(data));
  }

  private async publish(m: EntityManager, zone: ZoneRow, before: DnsRecordData[], after: DnsRecordData[]): Promise<void> {
    const sets = changedSets(zone.name, before.map(data), after.map(data));
    if (!sets.length) return;
    const serial = await this.zones.bumpSerial(m, zone);
    await this.provider.replaceRecordSets(`${zone.name}.`, [...sets, soaSet(zone.name, this.config.dns.nameservers, serial)]);
  }

  private async found(zoneId: string, id: string, manager?: EntityManager): Promise<RecordRow> {
    const row = await this.records.findInZone(zoneId, id, manager);
    if (!row) throw Problem.notFound('DNS record');
    return row;
  }

  private defined(input: UpdateRecordRequest): Partial<DnsRecordData> {
    return Object.fromEntries(Object.entries(input).filter(([, value]) => value !== undefined)) as Partial<DnsRecordData>;
  }

  private summary(zone: ZoneRow, record: DnsRecordData) {
    return { zone: zone.name, name: record.name, type: record.type };
  }
}
