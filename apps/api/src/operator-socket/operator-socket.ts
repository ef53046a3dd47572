import { chmodSync, mkdirSync, rmSync } from 'node:fs';
import { createServer, Server, Socket } from 'node:net';
import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { DiscoveryService } from '@nestjs/core';
import { AppConfig, DataDirLockedError } from '@app/core';
import { cliCommandsIn, CliOutput, MIGRATION_RUN, runCommand } from '../cli-runner';
import { OperatorFrame, operatorSocketFolder, operatorSocketPath } from './operator-socket-path';

/** A request larger than this is no command line. */
const MAX_REQUEST_BYTES = 64 * 1024;

/**
 * On the embedded database the server owns the data directory, so the CLI cannot open it: the
 * commands that may (`runsInServer`, such as `backup:run`) run here instead, sent over a Unix socket
 * in the data directory that only its owner may use (issue 58). Others are refused as before (75).
 */
@Injectable()
export class OperatorSocket implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('OperatorSocket');
  private server: Server | null = null;
  private readonly open = new Set<Socket>();

  constructor(
    private readonly config: AppConfig,
    private readonly discovery: DiscoveryService,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (this.config.databaseUrl) return;
    const path = operatorSocketPath(this.config.dataDir);
    const server = createServer((socket) => this.accept(socket));
    try {
      const folder = operatorSocketFolder(this.config.dataDir);
      mkdirSync(folder, { recursive: true, mode: 0o700 });
      chmodSync(folder, 0o700);
      // This process holds the data directory's lock: a socket file left there is a dead server's.
      rmSync(path, { force: true });
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(path, () => resolve());
      });
      chmodSync(path, 0o600);
    } catch (err) {
      server.close();
      this.logger.warn(`Operator commands cannot reach this server (${path}: ${(err as Error).message})`);
      return;
    }
    this.server = server;
  }

  private accept(socket: Socket): void {
    this.open.add(socket);
    socket.on('close', () => this.open.delete(socket));
    socket.on('error', () => undefined);
    let request = '';
    const onData = (chunk: Buffer) => {
      request += chunk.toString('utf8');
      const end = request.indexOf('\n');
      if (end < 0 && request.length < MAX_REQUEST_BYTES) return;
      socket.off('data', onData);
      void this.answer(socket, end < 0 ? '' : request.slice(0, end));
    };
    socket.on('data', onData);
  }

  private async answer(socket: Socket, request: string): Promise<void> {
    const send = (frame: OperatorFrame) => {
      if (!socket.destroyed) socket.write(JSON.stringify(frame) + '\n');
    };
    const argv = argvOf(request);
    let exit: number;
    try {
      exit = await this.run(argv, { out: (text) => send({ out: text }), err: (text) => send({ err: text }) });
    } catch (err) {
      // Its name only: the options may hold secrets.
      this.logger.error(`Operator command ${argv?.[0]} failed: ${(err as Error).stack ?? String(err)}`);
      send({ err: 'The command failed in the API server; its log has the details.\n' });
      exit = 1;
    }
    send({ exit });
    socket.end();
  }

  private async run(argv: string[] | null, output: CliOutput): Promise<number> {
    if (!argv) {
      output.err('Not an operator command line.\n');
      return 64;
    }
    const commands = cliCommandsIn(this.discovery);
    const [name] = argv;
    const command = commands.find((c) => c.name === name);
    if (name === MIGRATION_RUN || (command && !command.runsInServer)) {
      const through = commands
        .filter((c) => c.runsInServer)
        .map((c) => c.name)
        .sort();
      output.err(
        `${new DataDirLockedError(this.config.dataDir, process.pid).message} While it runs, these commands go through it: ${through.join(', ')}.\n`,
      );
      return 75;
    }
    if (command) output.err(`${name} runs in the API server (process ${process.pid}), which owns the embedded database.\n`);
    return runCommand(commands, argv, output);
  }

  async onApplicationShutdown(): Promise<void> {
    const server = this.server;
    this.server = null;
    if (!server) return;
    // A command still running is cut off: the CLI says so (75), and a backup's lease runs out as when a worker dies.
    for (const socket of this.open) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

function argvOf(request: string): string[] | null {
  try {
    const { argv } = JSON.parse(request) as { argv?: unknown };
    return Array.isArray(argv) && argv.every((a) => typeof a === 'string') ? argv : null;
  } catch {
    return null;
  }
}
