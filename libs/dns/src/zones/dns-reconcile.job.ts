import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { AppConfig, JobQueue, TransactionRunner } from '@app/core';
import { ReverseDns } from '../reverse/reverse-dns';
import { DnsProvider } from '../provider/dns-provider';
import { RecordsRepository } from '../records/records.repository';
import { changedSets, soaSet } from './zone-sets';
import { ZonesRepository } from './zones.repository';

const EVERY_SECONDS = 3600;

export interface DnsReconciliation {
  /** Zones the servers held that no account does (a create that did not commit, a deleted account's). */
  removed: string[];
  /** Zones an account holds that the servers had lost, written again from the database. */
  restored: string[];
}

/**
 * Compares the zones the DNS servers hold with the database, hourly and when a process starts. A
 * difference is acted on only when the previous run saw it too, so a change whose transaction is
 * still open (the server already written, the row not yet committed) is never undone. Reverse zones
 * (`.arpa.`) are the API's own: left alone, and those of the address pools made where missing.
 */
@Injectable()
export class DnsReconcileJob implements OnModuleInit {
  private readonly logger = new Logger('Dns');
  private seenBefore = new Set<string>();

  constructor(
    private readonly zones: ZonesRepository,
    private readonly records: RecordsRepository,
    private readonly provider: DnsProvider,
    private readonly jobs: JobQueue,
    private readonly config: AppConfig,
    private readonly reverse: ReverseDns,
    private readonly tx: TransactionRunner,
  ) {}

  onModuleInit(): void {
    this.jobs.every('dns-reconcile', EVERY_SECONDS, async () => void (await this.run()), { atStart: true });
  }

  async run(): Promise<DnsReconciliation> {
    const served = new Set(await this.provider.listZones());
    const held = await this.zones.all();
    const heldNames = new Set(held.map((zone) => `${zone.name}.`));
    const seen = new Set<string>();
    const result: DnsReconciliation = { removed: [], restored: [] };
    for (const name of served) {
      if (name.endsWith('.arpa.') || heldNames.has(name)) continue;
      seen.add(`-${name}`);
      if (!this.seenBefore.has(`-${name}`)) continue;
      await this.provider.deleteZone(name);
      result.removed.push(name);
    }
    const { nameservers } = this.config.dns;
    for (const zone of held) {
      if (served.has(`${zone.name}.`)) continue;
      seen.add(`+${zone.name}`);
      if (!this.seenBefore.has(`+${zone.name}`)) continue;
      await this.provider.createZone(`${zone.name}.`, nameservers, soaSet(zone.name, nameservers, Number(zone.serial)));
      const sets = changedSets(zone.name, [], await this.records.ofZone(zone.id));
      if (sets.length) await this.provider.replaceRecordSets(`${zone.name}.`, sets);
      result.restored.push(zone.name);
    }
    this.seenBefore = seen;
    await this.reverse.ensurePoolZones((work) => this.tx.run(work));
    if (result.removed.length || result.restored.length)
      this.logger.warn(
        `DNS servers reconciled: removed ${result.removed.join(', ') || 'none'}; restored ${result.restored.join(', ') || 'none'}`,
      );
    return result;
  }
}
