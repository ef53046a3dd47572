import { NestFactory } from '@nestjs/core';
import { ExpressAdapter, NestExpressApplication } from '@nestjs/platform-express';
import type { Logger } from 'pino';
import { AppConfig, PinoNestLogger } from '@app/core';
import { AppModule } from '../app.module';
import { configureApp } from './configure-app';

export async function createApp(
  config: AppConfig,
  logger?: Logger,
  beforeRoutes?: (app: NestExpressApplication) => void,
): Promise<NestExpressApplication> {
  const app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot(config), new ExpressAdapter(), {
    bodyParser: false,
    logger: logger ? new PinoNestLogger(logger) : false,
    abortOnError: false,
  });
  beforeRoutes?.(app);
  configureApp(app, config, logger);
  await app.init();
  return app;
}
