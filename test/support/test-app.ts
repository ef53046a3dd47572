import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NestExpressApplication } from '@nestjs/platform-express';
import { DataSource } from 'typeorm';
import { AppConfig, loadConfig } from '@app/core';
import { createApp } from '../../apps/api/src/http/create-app';
import { buildOpenApiDocument } from '../../apps/api/src/http/openapi';
import { contractViolations, recordResponses, RecordedResponse } from './contract';
import { testEnv } from './test-env';

export interface TestApp {
  app: NestExpressApplication;
  http: ReturnType<NestExpressApplication['getHttpServer']>;
  config: AppConfig;
  db: DataSource;
  close(): Promise<void>;
}

/**
 * The whole app, configured as the server is, on the test database. One per test file. Every JSON
 * response it sends is checked against the OpenAPI document when the file closes it.
 */
export async function startTestApp(overrides: Record<string, string | undefined> = {}): Promise<TestApp> {
  const dataDir = mkdtempSync(join(tmpdir(), 'api-test-'));
  const config = loadConfig(testEnv({ DATA_DIR: dataDir, ...overrides }));
  const recorded: RecordedResponse[] = [];
  const app = await createApp(config, undefined, (nest) => nest.use(recordResponses(recorded)));
  await app.listen(0, '127.0.0.1');
  return {
    app,
    http: app.getHttpServer(),
    config,
    db: app.get(DataSource),
    /** Closes the app, then checks every JSON response it sent against the OpenAPI document. */
    async close() {
      const violations = contractViolations(buildOpenApiDocument(app, config.publicUrl), recorded);
      await app.close();
      rmSync(dataDir, { recursive: true, force: true });
      if (violations.length) throw new Error(`Responses that do not match the OpenAPI document:\n${violations.join('\n')}`);
    },
  };
}
