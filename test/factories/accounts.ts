import { randomUUID } from 'node:crypto';
import { ApiKeysService } from '@app/api-keys';
import { AccountsService } from '@app/accounts';
import { SessionsService } from '@app/auth';
import { TransactionRunner, type Scope } from '@app/core';
import { TestApp } from '../support/test-app';

export interface TestAccount {
  id: string;
  email: string;
  password: string;
  accessToken: string;
  refreshToken: string;
  apiKey: string;
  apiKeyId: string;
  /** `Authorization` header value with the access token. */
  bearer: string;
  /** `Authorization` header value with the API key. */
  keyBearer: string;
}

/**
 * A fresh account with a logged-in session and a read+write API key, made through the services.
 * Its address is confirmed (as the owner would by the mailed link) unless `verified: false`:
 * unconfirmed accounts may not create API keys or webhooks.
 */
export async function createAccount(t: TestApp, options: { scopes?: Scope[]; verified?: boolean } = {}): Promise<TestAccount> {
  const email = `user-${randomUUID()}@example.test`;
  const password = 'correct horse battery staple';
  const { account, session } = await t.app.get(TransactionRunner).run(async (m) => {
    const accounts = t.app.get(AccountsService);
    const account = await accounts.create(m, { email, password, name: 'Test User' });
    if (options.verified !== false) await accounts.markEmailVerified(m, account.id, account.email);
    return { account, session: await t.app.get(SessionsService).start(m, account.id) };
  });
  const key = await t.app.get(ApiKeysService).create(account.id, { name: 'test key', scopes: options.scopes });
  return {
    id: account.id,
    email,
    password,
    accessToken: session.accessToken,
    refreshToken: session.refreshToken,
    apiKey: key.key,
    apiKeyId: key.id,
    bearer: `Bearer ${session.accessToken}`,
    keyBearer: `Bearer ${key.key}`,
  };
}
