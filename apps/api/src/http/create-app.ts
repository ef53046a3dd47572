import { NestFactory } from '@nestjs/core';
import { NestExpressApplication } from '@nestjs/platform-express';
import type { Logger } from 'pino';
import { AppConfig, PinoNestLogger } from '@app/core';
import { AppModule } from '../app.module';
import { configureApp } from './configure-app';
import { DrainingExpressAdapter } from './draining-express-adapter';

export async function createApp(
  config: AppConfig,
  logger?: Logger,
  beforeRoutes?: (app: NestExpressApplication) => void,
): Promise<NestExpressApplication> {
  const app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot(config), new DrainingExpressAdapter(), {
    bodyParser: false,
    logger: logger ? new PinoNestLogger(logger) : false,
    abortOnError: false,
  });
  beforeRoutes?.(app);
  configureApp(app, config, logger);
  await app.init();
  return app;
}
