import 'reflect-metadata';
import type { INestApplication } from '@nestjs/common';
import type { Logger } from 'pino';
import { ConfigError, createRootLogger, DataDirLockedError, loadConfig, prettyLogs } from '@app/core';
import { DemoDataService } from './demo/demo-data.service';
import { demoNotice } from './demo/demo-notice';
import { createApp } from './http/create-app';

const DRAIN_TIMEOUT_MS = 25_000;

/** SIGTERM/SIGINT: stop accepting, let in-flight requests finish, close the pool, exit 0. */
function drainOnSignals(app: INestApplication, logger: Logger): void {
  let closing = false;
  const shutdown = (signal: string) => {
    if (closing) return;
    closing = true;
    logger.info(`${signal} received: draining`);
    setTimeout(() => {
      logger.error('Drain timed out; exiting');
      process.exit(1);
    }, DRAIN_TIMEOUT_MS).unref();
    app.close().then(
      () => process.exit(0),
      (err: unknown) => {
        logger.error({ err }, 'Shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}

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
  const pretty = prettyLogs(config.nodeEnv);
  const logger = await createRootLogger(config.logLevel, 1, pretty);
  try {
    const app = await createApp(config, { logger, oneLineRequests: pretty });
    const demo = config.demoData ? await app.get(DemoDataService).ensure() : null;
    await app.listen(config.port);
    // Last before "listening", so that a terminal shows the credentials when start-up is done.
    const notice = demoNotice(demo, config);
    if (notice) {
      await new Promise<void>((resolve) => logger.flush(() => resolve()));
      process.stdout.write(notice);
    }
    logger.info(`API listening on ${config.publicUrl}${config.docsEnabled ? ` (docs: ${config.publicUrl}/docs)` : ''}`);
    drainOnSignals(app, logger);
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
