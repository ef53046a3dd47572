import 'reflect-metadata';
import { ConfigError, createRootLogger, DataDirLockedError, loadConfig } from '@app/core';
import { DemoDataService } from './demo/demo-data.service';
import { createApp } from './http/create-app';

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(78);
    }
    throw err;
  }
  const logger = createRootLogger(config.logLevel);
  try {
    const app = await createApp(config, logger);
    if (config.demoData) await app.get(DemoDataService).ensure();
    await app.listen(config.port);
    logger.info(`API listening on ${config.publicUrl}${config.docsEnabled ? ` (docs: ${config.publicUrl}/docs)` : ''}`);
  } catch (err) {
    if (err instanceof DataDirLockedError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(75);
    }
    logger.fatal({ err }, 'Start-up failed');
    process.exit(1);
  }
}

void main();
