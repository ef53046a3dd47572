import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { DynamicModule, Type } from '@nestjs/common';
import { EventEmitterModule } from '@nestjs/event-emitter';
import { Test, TestingModule } from '@nestjs/testing';
import { AccountsModule, AccountsService } from '@app/accounts';
import { AppConfig, ConfigModule, CoreModule, DatabaseModule, loadConfig, Principal, TransactionRunner } from '@app/core';
import { EventsModule } from '@app/events';
import { CredentialStatusModule } from '../../apps/api/src/credentials/credential-status.module';
import { allMigrations } from '../../apps/api/src/migrations';
import { freshDataDir } from './test-database';
import { testEnv } from './test-env';

export interface TestModule {
  module: TestingModule;
  config: AppConfig;
  get<T>(type: Type<T> | (abstract new (...args: any[]) => T)): T;
  /** A new account (id), made through AccountsService. */
  accountId(name?: string): Promise<string>;
  close(): Promise<void>;
}

/**
 * The account holder calling with an access token: what a controller passes to a service. Its
 * member id is null; `memberId` gives it where a spec needs the owner's membership (their API keys).
 */
export function callerFor(accountId: string, memberId: string | null = null): Principal {
  return {
    accountId,
    loginId: accountId,
    email: `${accountId}@example.test`,
    memberId,
    role: 'owner',
    kind: 'access_token',
    credentialId: randomUUID(),
    scopes: ['read', 'write'],
    expiresAt: null,
  };
}

export interface ProviderOverride {
  provide: Type | (abstract new (...args: any[]) => unknown);
  useValue: unknown;
}

/**
 * The middle tier: an area's modules on the real test database, with no HTTP in front. Services are
 * called directly, so a spec states the rule it checks without request plumbing. `replace` swaps a
 * port for a fake (a hypervisor, never the database).
 */
export async function startTestModule(
  imports: (Type | DynamicModule)[],
  overrides: Record<string, string> = {},
  replace: ProviderOverride[] = [],
): Promise<TestModule> {
  const dataDir = freshDataDir('api-module-');
  try {
    return await startModule(dataDir, imports, overrides, replace);
  } catch (err) {
    // A module that does not start leaves no data folder (its secrets) behind.
    rmSync(dataDir, { recursive: true, force: true });
    throw err;
  }
}

async function startModule(
  dataDir: string,
  imports: (Type | DynamicModule)[],
  overrides: Record<string, string>,
  replace: ProviderOverride[],
): Promise<TestModule> {
  const config = loadConfig(testEnv({ DATA_DIR: dataDir, ...overrides }));
  let builder = Test.createTestingModule({
    imports: [
      ConfigModule.forRoot(config),
      CoreModule,
      DatabaseModule.forRoot({ migrations: allMigrations }),
      EventEmitterModule.forRoot({ ignoreErrors: true }),
      AccountsModule,
      // Global: every area records its activity through it.
      EventsModule,
      // Global: consoles check their opener's credential through it.
      CredentialStatusModule,
      ...imports,
    ],
  });
  for (const { provide, useValue } of replace) builder = builder.overrideProvider(provide).useValue(useValue);
  const module = await builder.compile();
  await module.init().catch(async (err: unknown) => {
    await module.close().catch(() => undefined);
    throw err;
  });
  return {
    module,
    config,
    get: (type) => module.get(type, { strict: false }),
    async accountId(name = 'Test User') {
      const accounts = module.get(AccountsService, { strict: false });
      const email = `user-${randomUUID()}@example.test`;
      const account = await module
        .get(TransactionRunner)
        .run((m) => accounts.create(m, { email, password: 'correct horse battery staple', name }));
      return account.id;
    },
    async close() {
      try {
        await module.close();
      } finally {
        rmSync(dataDir, { recursive: true, force: true });
      }
    },
  };
}
