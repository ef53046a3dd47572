import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { AccountsService } from '@app/accounts';
import {
  ActivityAction,
  ActivityLog,
  AppConfig,
  isUniqueViolation,
  PageQuery,
  paginated,
  Paginated,
  Principal,
  Problem,
  TransactionRunner,
} from '@app/core';
import { zoneExists } from '../dns.problems';
import { CreateZoneRequest } from '../dto/zone.request';
import { ZoneResponse } from '../dto/zone.response';
import { DnsProvider } from '../provider/dns-provider';
import { zoneName } from '../records/zone-name';
import { nextSerial, soaSet } from './zone-sets';
import { ZoneSyncJob } from './zone-sync.job';
import { ZoneRow, ZonesRepository } from './zones.repository';
import '../dns.events';

/** An account's DNS zones: kept in the database, served by the DNS servers (docs/decisions/dns.md). */
@Injectable()
export class ZonesService {
  constructor(
    private readonly zones: ZonesRepository,
    private readonly provider: DnsProvider,
    private readonly tx: TransactionRunner,
    private readonly accounts: AccountsService,
    private readonly activity: ActivityLog,
    private readonly config: AppConfig,
    private readonly sync: ZoneSyncJob,
  ) {}

  async create(caller: Principal, input: CreateZoneRequest): Promise<ZoneResponse> {
    const { accountId } = caller;
    const { nameservers, reservedZones, zonesPerAccount } = this.config.dns;
    const name = await zoneName(input.name, reservedZones);
    try {
      const id = await this.tx.run(async (m) => {
        await this.accounts.lockForUpdate(m, accountId);
        await this.zones.lockName(m, name);
        if (await this.zones.nameTaken(m, accountId, name)) throw zoneExists();
        if ((await this.zones.countForAccount(m, accountId)) >= zonesPerAccount)
          throw Problem.conflict('quota_exceeded', `An account can have at most ${zonesPerAccount} DNS zones; delete one first.`);
        const serial = nextSerial(0);
        const made = await this.zones.insert(m, accountId, name, serial);
        // Last, inside the transaction: a server that refuses or does not answer leaves no row.
        await this.provider.createZone(`${name}.`, nameservers, soaSet(name, nameservers, serial));
        await this.record(m, caller, 'dns_zone.create', made, { name });
        return made;
      });
      return this.get(accountId, id);
    } catch (err) {
      if (isUniqueViolation(err)) throw zoneExists();
      await this.sync.afterFailure(name, err);
      throw err;
    }
  }

  async list(accountId: string, query: PageQuery): Promise<Paginated<ZoneResponse>> {
    const { rows, total } = await this.zones.pageForAccount(accountId, query);
    return paginated(
      rows.map((row) => this.toResponse(row)),
      query,
      total,
    );
  }

  async get(accountId: string, id: string): Promise<ZoneResponse> {
    return this.toResponse(await this.owned(accountId, id));
  }

  /** The account's zone (404 when it has none of this id). */
  async owned(accountId: string, id: string, manager?: EntityManager): Promise<ZoneRow> {
    const row = await this.zones.findOneForAccount(accountId, id, manager);
    if (!row) throw Problem.notFound('DNS zone');
    return row;
  }

  async remove(caller: Principal, id: string): Promise<void> {
    await this.change(caller, id, async (m, zone) => {
      await this.zones.delete(m, id);
      await this.provider.deleteZone(`${zone.name}.`);
      await this.record(m, caller, 'dns_zone.delete', id, { name: zone.name });
    });
  }

  /** A change of the caller's zone in one transaction, its row locked (404 when the account has none of this id). */
  async change<T>(caller: Principal, id: string, work: (m: EntityManager, zone: ZoneRow) => Promise<T>): Promise<T> {
    let name: string | undefined;
    try {
      return await this.tx.run(async (m) => {
        const zone = await this.zones.lockForAccount(m, caller.accountId, id);
        if (!zone) throw Problem.notFound('DNS zone');
        name = zone.name;
        return work(m, zone);
      });
    } catch (err) {
      if (name) await this.sync.afterFailure(name, err);
      throw err;
    }
  }

  /** The zone's next serial, recorded in the transaction of the change that needs it. */
  async bumpSerial(m: EntityManager, zone: ZoneRow): Promise<number> {
    const serial = nextSerial(Number(zone.serial));
    await this.zones.setSerial(m, zone.id, serial);
    return serial;
  }

  record(m: EntityManager, caller: Principal, action: ActivityAction, id: string, details: Record<string, unknown>) {
    return this.activity.record(m, { accountId: caller.accountId, caller, action, entity: { type: 'dns_zone', id }, details });
  }

  private toResponse(row: ZoneRow): ZoneResponse {
    return ZoneResponse.from(row, this.config.dns.nameservers);
  }
}
