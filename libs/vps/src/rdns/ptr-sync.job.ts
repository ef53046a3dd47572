import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { AppConfig, JobQueue, TransactionRunner } from '@app/core';
import { defaultPtr, DnsUnavailable, ReverseDns } from '@app/dns';
import { hostnameOf } from '../instances/guest-setup';
import { PtrsRepository } from './ptrs.repository';

export const PTR_SYNC_JOB = 'vps-ptr-sync';
const RETRIES = { retryLimit: 12, retryDelaySeconds: 2, retryBackoff: true };

/**
 * Writes one address's PTR as it is now: the one its VPS's owner set, else the default, and none
 * once no live VPS holds it. Sent when an address is handed out or given back, and after a PTR
 * change the DNS servers did not answer; a second pass follows 10 s later for a request they
 * queued (docs/decisions/dns.md). It reads the state when it runs, so the order of runs is free.
 */
@Injectable()
export class PtrSyncJob implements OnModuleInit {
  private readonly logger = new Logger('Dns');

  constructor(
    private readonly ptrs: PtrsRepository,
    private readonly reverse: ReverseDns,
    private readonly tx: TransactionRunner,
    private readonly jobs: JobQueue,
    private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    this.jobs.work<{ address: string; repair?: boolean }>(PTR_SYNC_JOB, async ({ address, repair }) => {
      await this.run(address);
      if (repair) await this.jobs.send(PTR_SYNC_JOB, { address }, { ...RETRIES, startAfterSeconds: 10 });
    });
  }

  async enqueue(manager: EntityManager, addresses: string[]): Promise<void> {
    for (const address of addresses) await this.jobs.send(PTR_SYNC_JOB, { address }, { ...RETRIES, coalesceKey: address }, manager);
  }

  /** After a PTR change failed: when the servers did not answer, the address is written again as recorded. */
  async afterFailure(address: string, err: unknown): Promise<void> {
    if (!(err instanceof DnsUnavailable)) return;
    await this.jobs.send(PTR_SYNC_JOB, { address, repair: true }, { ...RETRIES, coalesceKey: address });
    this.logger.warn(`DNS servers did not answer a PTR change of ${address}; it will be written again as recorded`);
  }

  async run(address: string): Promise<void> {
    await this.tx.run(async (m) => {
      const holder = await this.ptrs.holderOf(address, m);
      const ptr = holder ? (holder.ptr ?? defaultPtr(hostnameOf(holder.name, holder.serviceId), this.config.dns.defaultPtrDomain)) : null;
      await this.reverse.publish(m, address, ptr);
    });
  }
}
