import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { AppConfig, JobQueue, TransactionRunner } from '@app/core';
import { DnsProvider, DnsRecordSet, DnsUnavailable } from '../provider/dns-provider';
import { RecordsRepository } from '../records/records.repository';
import { changedSets, nextSerial, soaSet } from './zone-sets';
import { ZonesRepository } from './zones.repository';

export const ZONE_SYNC_JOB = 'dns-zone-sync';
/** A second pass this long after the first: the server may apply a request it queued after the first pass's. */
const SECOND_PASS_SECONDS = 10;

interface ZoneSync {
  zone: string;
  /** 1 for the pass queued by the failure, 2 for the pass after it. */
  pass?: number;
}

/**
 * Writes one zone to the DNS servers exactly as the database holds it, after a change that timed
 * out: the server may still apply the request it did not answer, and the API has told the client
 * nothing changed, so the database's state is written over whatever arrived (a zone no account
 * holds is deleted). Retried with backoff until the servers answer, and done once more a little
 * later: a request the server queued while it hung can reach it after the first pass.
 */
const RETRIES = { retryLimit: 12, retryDelaySeconds: 2, retryBackoff: true };

@Injectable()
export class ZoneSyncJob implements OnModuleInit {
  private readonly logger = new Logger('Dns');

  constructor(
    private readonly zones: ZonesRepository,
    private readonly records: RecordsRepository,
    private readonly provider: DnsProvider,
    private readonly tx: TransactionRunner,
    private readonly jobs: JobQueue,
    private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    this.jobs.work<ZoneSync>(ZONE_SYNC_JOB, async ({ zone, pass = 1 }) => {
      await this.run(zone);
      if (pass === 1) await this.jobs.send(ZONE_SYNC_JOB, { zone, pass: 2 }, { ...RETRIES, startAfterSeconds: SECOND_PASS_SECONDS });
    });
  }

  /** After a change of `zone` failed: when the servers did not answer, its repair is queued. */
  async afterFailure(zone: string, err: unknown): Promise<void> {
    if (!(err instanceof DnsUnavailable)) return;
    await this.jobs.send(ZONE_SYNC_JOB, { zone, pass: 1 }, { ...RETRIES, coalesceKey: zone });
    this.logger.warn(`DNS servers did not answer a change of ${zone}; it will be written again as recorded`);
  }

  async run(name: string): Promise<void> {
    await this.tx.run(async (m) => {
      await this.zones.lockName(m, name);
      const zone = await this.zones.lockByName(m, name);
      if (!zone) return this.provider.deleteZone(`${name}.`);
      const { nameservers } = this.config.dns;
      const serial = nextSerial(Number(zone.serial));
      await this.zones.setSerial(m, zone.id, serial);
      const soa = soaSet(name, nameservers, serial);
      const served = await this.provider.recordSets(`${name}.`);
      if (!served) await this.provider.createZone(`${name}.`, nameservers, soa);
      const wanted = changedSets(name, [], await this.records.ofZone(zone.id, m));
      const key = (set: DnsRecordSet) => `${set.name} ${set.type}`;
      const kept = new Set([...wanted, soa].map(key));
      const stale = (served ?? []).filter((set) => !kept.has(key(set)) && !(set.type === 'NS' && set.name === `${name}.`));
      await this.provider.replaceRecordSets(`${name}.`, [...wanted, ...stale.map((set) => ({ ...set, contents: [] })), soa]);
    });
  }
}
