import 'reflect-metadata';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '@app/core';
import { createApp } from './http/create-app';
import { buildOpenApiDocument } from './http/openapi';

/** Writes the OpenAPI document the server would serve, for review, linting and the SDK. */
async function main(out: string): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'openapi-'));
  const config = loadConfig({
    ...process.env,
    DATABASE_URL: undefined,
    DATA_DIR: dataDir,
    DEMO_DATA: 'false',
    DOCS_ENABLED: 'false',
    PUBLIC_URL: 'https://api.hosting.example',
  });
  const app = await createApp(config);
  try {
    const document = buildOpenApiDocument(app);
    writeFileSync(out, JSON.stringify(document, null, 2) + '\n');
    process.stderr.write(`Wrote ${out}\n`);
  } finally {
    await app.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main(process.argv[2] ?? 'apps/api/openapi.json').catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
