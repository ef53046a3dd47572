import { randomBytes } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { DiscoveryService } from '@nestjs/core';
import { ApiKeysService } from '@app/api-keys';
import { AccountsService } from '@app/accounts';
import { DemoSeeder, TransactionRunner } from '@app/core';

export const DEMO_EMAIL = 'demo@example.com';

export interface DemoCredentials {
  email: string;
  password: string;
  apiKey: string;
}

/** What a start found: demo data made now (its one-time credentials), made on an earlier start, or none. */
export type DemoStart = { created: DemoCredentials } | { existing: string } | null;

/** On the first start of an empty database: a demo account, a key, and each area's demo data. */
@Injectable()
export class DemoDataService {
  constructor(
    private readonly tx: TransactionRunner,
    private readonly accounts: AccountsService,
    private readonly apiKeys: ApiKeysService,
    private readonly discovery: DiscoveryService,
  ) {}

  async ensure(): Promise<DemoStart> {
    if (!(await this.accounts.exists())) return { created: await this.create() };
    return (await this.accounts.findByEmail(DEMO_EMAIL)) ? { existing: DEMO_EMAIL } : null;
  }

  async create(): Promise<DemoCredentials> {
    const password = randomBytes(12).toString('base64url');
    const account = await this.tx.run(async (m) => {
      const created = await this.accounts.create(m, { email: DEMO_EMAIL, password, name: 'Demo Customer' });
      // Nobody reads demo@example.com: confirmed, so the demo account can make keys and webhooks from /docs.
      await this.accounts.markEmailVerified(m, created.id, created.email);
      return created;
    });
    const key = await this.apiKeys.create(account.id, { name: 'demo key' });
    const seeders = this.discovery
      .getProviders()
      .map((wrapper) => wrapper.instance as unknown)
      .filter((instance): instance is DemoSeeder => instance instanceof DemoSeeder)
      .sort((a, b) => a.order - b.order);
    await this.tx.run(async (manager) => {
      for (const seeder of seeders) await seeder.seed({ accountId: account.id, manager });
    });
    return { email: DEMO_EMAIL, password, apiKey: key.key };
  }
}
