import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { NestExpressApplication } from '@nestjs/platform-express';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { AppConfig, loadConfig } from '@app/core';
import type { AppLogging } from '../../apps/api/src/http/configure-app';
import { createApp } from '../../apps/api/src/http/create-app';
import { buildOpenApiDocument } from '../../apps/api/src/http/openapi';
import { createAccount, TestAccount } from '../factories/accounts';
import { contractViolations, recordResponses, RecordedResponse } from './contract';
import { AppDatabase, createAppDatabase, forgetQueuedJobs, freshDataDir, RUN_DIR_ENV } from './test-database';
import { TEST_DATABASE_URL, testEnv } from './test-env';

export interface TestApp {
  app: NestExpressApplication;
  http: ReturnType<NestExpressApplication['getHttpServer']>;
  config: AppConfig;
  db: DataSource;
  /** GET with `Authorization: <bearer>` when one is given. */
  get(path: string, bearer?: string): request.Test;
  close(): Promise<void>;
}

/**
 * The whole app, configured as the server is, on the test database. One per test file. Every JSON
 * response it sends is checked against the OpenAPI document when the file closes it. Swagger UI
 * and /openapi.json are off unless asked for (`DOCS_ENABLED: 'true'`): building the document is
 * the slowest part of a start.
 */
export async function startTestApp(overrides: Record<string, string | undefined> = {}, logging?: AppLogging): Promise<TestApp> {
  // Counted as open from here: an app started beside it (Promise.all) sees it.
  const open = { configuration: configurationKey(overrides) };
  const ownDatabase = needsOwnDatabase(overrides, open.configuration);
  openApps.add(open);
  let database: AppDatabase | null = null;
  const dataDir = freshDataDir();
  // An app that does not start leaves no data folder (its secrets) and no database of its own behind.
  const abandonStart = async (err: unknown): Promise<never> => {
    openApps.delete(open);
    rmSync(dataDir, { recursive: true, force: true });
    await database?.drop();
    throw err;
  };
  if (ownDatabase) database = await createAppDatabase().catch(abandonStart);
  let config: AppConfig;
  try {
    config = loadConfig(
      testEnv({ DATA_DIR: dataDir, DOCS_ENABLED: 'false', ...overrides, ...(database ? { DATABASE_URL: database.url } : {}) }),
    );
  } catch (err) {
    return abandonStart(err);
  }
  const recorded: RecordedResponse[] = [];
  const app = await createApp(config, logging, (nest) => nest.use(recordResponses(recorded))).catch(abandonStart);
  await app.listen(0, '127.0.0.1').catch(async (err: unknown) => {
    await app.close().catch(() => undefined);
    await abandonStart(err);
  });
  return {
    app,
    http: app.getHttpServer(),
    config,
    db: app.get(DataSource),
    get(path, bearer) {
      const req = request(app.getHttpServer()).get(path);
      return bearer ? req.set('Authorization', bearer) : req;
    },
    /** Closes the app, then checks every JSON response it sent against the OpenAPI document. */
    async close() {
      const violations = recorded.length ? contractViolations(openApiDocument(app), recorded) : [];
      try {
        await app.close();
      } finally {
        openApps.delete(open);
        rmSync(dataDir, { recursive: true, force: true });
        await database?.drop();
      }
      if (violations.length) throw new Error(`Responses that do not match the OpenAPI document:\n${violations.join('\n')}`);
    },
  };
}

/** The configurations of the apps this process has open. */
const openApps = new Set<{ configuration: string }>();

const configurationKey = (overrides: Record<string, string | undefined>) => JSON.stringify(Object.entries(overrides).sort());

/**
 * On PostgreSQL, an app whose configuration differs from one already open gets a database of its
 * own (createAppDatabase says why); apps of one configuration share the worker's, and so does an
 * app given its DATABASE_URL.
 */
function needsOwnDatabase(overrides: Record<string, string | undefined>, configuration: string): boolean {
  if (!TEST_DATABASE_URL || 'DATABASE_URL' in overrides) return false;
  return [...openApps].some((open) => open.configuration !== configuration);
}

/** The document is the same for every app of a run: built once, kept in the run's directory. */
function openApiDocument(app: NestExpressApplication): unknown {
  const runDir = process.env[RUN_DIR_ENV];
  const cached = runDir && join(runDir, 'openapi.json');
  if (cached && existsSync(cached)) return JSON.parse(readFileSync(cached, 'utf8'));
  const document = buildOpenApiDocument(app);
  if (cached) writeFileSync(cached, JSON.stringify(document));
  return document;
}

const sharedApps = new Map<string, Promise<TestApp>>();

/**
 * The app of this configuration that every suite of the Jest file asking for it shares (a start
 * and the module graph are most of a small suite's time, so related suites are grouped into one
 * file, see test/account/account.e2e-spec.ts). The apps close, with the contract check, after the file's
 * last test; a suite does not close one (its `close` does nothing). A suite that stops its app or
 * leaves a provider changed starts one of its own with `startTestApp`.
 */
export async function sharedTestApp(overrides: Record<string, string | undefined> = {}): Promise<TestApp> {
  const key = configurationKey(overrides);
  if (!sharedApps.has(key)) sharedApps.set(key, startTestApp(overrides));
  const t = await sharedApps.get(key)!;
  return { ...t, close: async () => undefined };
}

if (typeof beforeAll === 'function' && TEST_DATABASE_URL) {
  // Registered as the file imports this module: before the file's own hooks start anything.
  beforeAll(() => forgetQueuedJobs(TEST_DATABASE_URL!));
}

if (typeof afterAll === 'function') {
  afterAll(async () => {
    const apps = await Promise.all(sharedApps.values());
    sharedApps.clear();
    for (const app of apps) await app.close();
  });
}

/** A shared app with two new accounts: `owner` acts, `stranger` checks that nothing of the owner's is visible. */
export type TestAppWithAccounts = TestApp & { owner: TestAccount; stranger: TestAccount };

export async function startAppWithAccounts(overrides: Record<string, string | undefined> = {}): Promise<TestAppWithAccounts> {
  const t = await sharedTestApp(overrides);
  return Object.assign(t, { owner: await createAccount(t), stranger: await createAccount(t) });
}

/** Two apps on the one test database (PostgreSQL): what one process does, the other must see. */
export interface TwoApps {
  a: TestApp;
  b: TestApp;
  close(): Promise<void>;
}

export async function startTwoApps(overrides: Record<string, string | undefined> = {}): Promise<TwoApps> {
  const a = await startTestApp(overrides);
  const b = await startTestApp(overrides);
  return {
    a,
    b,
    async close() {
      await a.close();
      await b.close();
    },
  };
}
