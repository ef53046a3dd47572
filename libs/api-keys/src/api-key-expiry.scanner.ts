import { Injectable } from '@nestjs/common';
import { Interval } from '@nestjs/schedule';
import { DataSource } from 'typeorm';
import { ApiKeyExpiringEvent, domainEvent, JobLock, TransactionRunner } from '@app/core';

export const EXPIRY_NOTICE_DAYS = 7;

/** Hourly: keys that expire within 7 days are announced (the notification is made once per key). */
@Injectable()
export class ApiKeyExpiryScanner {
  constructor(
    private readonly dataSource: DataSource,
    private readonly tx: TransactionRunner,
    private readonly jobs: JobLock,
  ) {}

  @Interval('api-key-expiry', 3_600_000)
  async tick(): Promise<void> {
    await this.jobs.runExclusive('api-key-expiry', async () => {
      await this.scan();
    });
  }

  async scan(): Promise<number> {
    const rows: { id: string; account_id: string; name: string; prefix: string; expires_at: Date }[] = await this.dataSource.query(
      `SELECT id, account_id, name, prefix, expires_at FROM api_keys
        WHERE revoked_at IS NULL AND expires_at > now() AND expires_at <= now() + interval '${EXPIRY_NOTICE_DAYS} days'`,
    );
    for (const row of rows) {
      this.tx.emit(
        domainEvent<ApiKeyExpiringEvent>('api_key.expiring', row.account_id, {
          apiKeyId: row.id,
          name: row.name,
          prefix: row.prefix,
          expiresAt: row.expires_at.toISOString(),
        }),
      );
    }
    return rows.length;
  }
}
