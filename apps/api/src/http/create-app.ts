import { NestFactory } from '@nestjs/core';
import { NestExpressApplication } from '@nestjs/platform-express';
import { AppConfig, PinoNestLogger } from '@app/core';
import { AppModule } from '../app.module';
import { AppLogging, configureApp } from './configure-app';
import { DrainingExpressAdapter } from './draining-express-adapter';

export async function createApp(
  config: AppConfig,
  logging?: AppLogging,
  beforeRoutes?: (app: NestExpressApplication) => void,
): Promise<NestExpressApplication> {
  const app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot(config), new DrainingExpressAdapter(), {
    bodyParser: false,
    logger: logging ? new PinoNestLogger(logging.logger) : false,
    abortOnError: false,
  });
  beforeRoutes?.(app);
  configureApp(app, config, logging);
  await app.init();
  return app;
}
