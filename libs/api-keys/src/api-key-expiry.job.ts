import { Injectable, OnModuleInit } from '@nestjs/common';
import { domainEvent, isoTimestamp, JobQueue, TransactionRunner } from '@app/core';
import { ApiKeyExpiringEvent } from './api-keys.events';
import { ApiKeysRepository } from './api-keys.repository';

export const EXPIRY_NOTICE_DAYS = 7;

/** Hourly: keys that expire within 7 days are announced (the notification is made once per key). */
@Injectable()
export class ApiKeyExpiryJob implements OnModuleInit {
  constructor(
    private readonly keys: ApiKeysRepository,
    private readonly tx: TransactionRunner,
    private readonly jobs: JobQueue,
  ) {}

  onModuleInit(): void {
    this.jobs.every('api-key-expiry', 3600, async () => void (await this.scan()));
  }

  async scan(): Promise<number> {
    const now = new Date();
    const horizon = new Date(now.getTime() + EXPIRY_NOTICE_DAYS * 86_400_000);
    const rows = await this.keys.findExpiringBetween(now, horizon);
    for (const row of rows) {
      this.tx.emit(
        domainEvent<ApiKeyExpiringEvent>('api_key.expiring', row.accountId, {
          apiKeyId: row.id,
          name: row.name,
          prefix: row.prefix,
          expiresAt: isoTimestamp(row.expiresAt!),
        }),
      );
    }
    return rows.length;
  }
}
