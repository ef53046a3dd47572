import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { DataSource } from 'typeorm';
import { createRootLogger, loadConfig, PinoNestLogger, prettyLogs, runMigrations } from '@app/core';
import { cliCommandsOf, failureOf, MIGRATION_RUN, runCommand } from './cli-runner';
import { CliModule } from './cli.module';

const stdio = { out: (text: string) => process.stdout.write(text), err: (text: string) => process.stderr.write(text) };

async function main(argv: string[]): Promise<number> {
  const config = loadConfig();
  const logger = createRootLogger(config.logLevel === 'info' ? 'warn' : config.logLevel, 2, prettyLogs(config.nodeEnv, 2));
  const [name] = argv;
  const app = await NestFactory.createApplicationContext(CliModule.forRoot(config, { migrate: name !== MIGRATION_RUN }), {
    logger: new PinoNestLogger(logger),
    abortOnError: false,
  });
  try {
    if (name === MIGRATION_RUN) {
      const applied = await runMigrations(app.get(DataSource), !config.databaseUrl);
      stdio.out(JSON.stringify(applied.length ? { migrations: 'applied', applied } : { migrations: 'up to date' }) + '\n');
      return 0;
    }
    return await runCommand(cliCommandsOf(app), argv, stdio);
  } finally {
    await app.close();
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    const failure = failureOf(err);
    process.stderr.write(`${failure ? failure.message : err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(failure?.code ?? 1);
  },
);
