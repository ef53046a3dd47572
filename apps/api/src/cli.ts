import 'reflect-metadata';
import { parseArgs } from 'node:util';
import { DiscoveryService, NestFactory } from '@nestjs/core';
import { DataSource } from 'typeorm';
import {
  CliCommand,
  CliUsageError,
  ConfigError,
  createRootLogger,
  DataDirLockedError,
  loadConfig,
  PinoNestLogger,
  prettyLogs,
  Problem,
  runMigrations,
} from '@app/core';
import { CliModule } from './cli.module';

const MIGRATION_RUN = 'migration:run';

function usage(commands: CliCommand[]): string {
  return ['Usage: npm run cli -- <command> [options]', '', 'Commands:', `  ${MIGRATION_RUN}`, ...commands.map((c) => `  ${c.usage}`)].join(
    '\n',
  );
}

async function main(argv: string[]): Promise<number> {
  const config = loadConfig();
  const logger = createRootLogger(config.logLevel === 'info' ? 'warn' : config.logLevel, 2, prettyLogs(config.nodeEnv, 2));
  const [name, ...rest] = argv;
  const app = await NestFactory.createApplicationContext(CliModule.forRoot(config, { migrate: name !== MIGRATION_RUN }), {
    logger: new PinoNestLogger(logger),
    abortOnError: false,
  });
  try {
    const commands = app
      .get(DiscoveryService)
      .getProviders()
      .map((w) => w.instance as unknown)
      .filter((i): i is CliCommand => i instanceof CliCommand);
    if (name === MIGRATION_RUN) {
      const applied = await runMigrations(app.get(DataSource), !config.databaseUrl);
      process.stdout.write(JSON.stringify(applied.length ? { migrations: 'applied', applied } : { migrations: 'up to date' }) + '\n');
      return 0;
    }
    const command = commands.find((c) => c.name === name);
    if (!command) {
      process.stderr.write(`${name ? `Unknown command "${name}".\n\n` : ''}${usage(commands)}\n`);
      return 64;
    }
    const { values } = parseArgs({
      args: rest,
      options: Object.fromEntries(command.options.map((o) => [o, { type: 'string' as const }])),
      strict: true,
    });
    for (const line of await command.run(values)) process.stdout.write(JSON.stringify(line) + '\n');
    return 0;
  } finally {
    await app.close();
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    if (err instanceof ConfigError || err instanceof DataDirLockedError || err instanceof CliUsageError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(err instanceof CliUsageError ? 64 : 75);
    }
    if (err instanceof Problem) {
      process.stderr.write(
        `${err.code}: ${err.detail}${err.errors ? ` (${err.errors.map((e) => `${e.field} ${e.message}`).join('; ')})` : ''}\n`,
      );
      process.exit(65);
    }
    if (err instanceof TypeError && (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      process.stderr.write(`${err.message}\n`);
      process.exit(64);
    }
    process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
