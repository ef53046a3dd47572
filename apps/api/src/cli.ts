import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { DataSource } from 'typeorm';
import { createRootLogger, dataDirOwner, loadConfig, PinoNestLogger, prettyLogs, runMigrations } from '@app/core';
import { cliCommandsOf, failureOf, MIGRATION_RUN, runCommand } from './cli-runner';
import { CliModule } from './cli.module';
import { runInServer } from './operator-socket/run-in-server';

const stdio = { out: (text: string) => process.stdout.write(text), err: (text: string) => process.stderr.write(text) };

async function main(argv: string[]): Promise<number> {
  const config = loadConfig();
  const logger = await createRootLogger(config.logLevel === 'info' ? 'warn' : config.logLevel, 2, prettyLogs(config.nodeEnv, 2));
  const [name] = argv;
  // The embedded database has one owner: while an API server holds it, the command goes to that server.
  const owner = config.databaseUrl ? null : dataDirOwner(config.dataDir);
  if (owner) return runInServer(config.dataDir, owner, argv, stdio);
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
