import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NestExpressApplication } from '@nestjs/platform-express';
import { DataSource } from 'typeorm';
import { AppConfig, loadConfig } from '@app/core';
import { createApp } from '../../apps/api/src/http/create-app';
import { testEnv } from './test-env';

export interface TestApp {
  app: NestExpressApplication;
  http: ReturnType<NestExpressApplication['getHttpServer']>;
  config: AppConfig;
  db: DataSource;
  close(): Promise<void>;
}

/** The whole app, configured as the server is, on the test database. One per test file. */
export async function startTestApp(overrides: Record<string, string | undefined> = {}): Promise<TestApp> {
  const dataDir = mkdtempSync(join(tmpdir(), 'api-test-'));
  const config = loadConfig(testEnv({ DATA_DIR: dataDir, ...overrides }));
  const app = await createApp(config);
  await app.listen(0, '127.0.0.1');
  return {
    app,
    http: app.getHttpServer(),
    config,
    db: app.get(DataSource),
    async close() {
      await app.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
