import type { Socket } from 'node:net';
import { Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import { WebSocket } from 'ws';
import { AppConfig } from '@app/core';
import { ConsoleSessionsRepository } from './console-sessions.repository';
import { copyBothWays } from './copy-both-ways';

/** How often this replica refreshes its open consoles and ends those whose machine stopped. */
export const CONSOLE_CHECK_INTERVAL_MS = 5_000;
const CLOSE_GRACE_MS = 2_000;

interface OpenConsole {
  ws: WebSocket;
  upstream: Socket;
  deadline: NodeJS.Timeout;
}

/**
 * The consoles open on this replica: each copies bytes between a WebSocket and the upstream VNC
 * socket, with backpressure both ways, until either side closes, CONSOLE_MAX_SECONDS pass or the
 * machine stops. The database knows them too, for the per-account limit across replicas.
 */
@Injectable()
export class ConsoleConnections implements OnModuleDestroy {
  private readonly logger = new Logger('Console');
  private readonly open = new Map<string, OpenConsole>();
  private checker: NodeJS.Timeout | null = null;
  bytesToClient = 0;
  bytesFromClient = 0;

  constructor(
    private readonly sessions: ConsoleSessionsRepository,
    private readonly config: AppConfig,
  ) {}

  get openCount(): number {
    return this.open.size;
  }

  bridge(sessionId: string, ws: WebSocket, upstream: Socket): void {
    const deadline = setTimeout(
      () => this.end(sessionId, 1000, 'The console session reached its time limit.'),
      this.config.consoleMaxSeconds * 1000,
    );
    this.open.set(sessionId, { ws, upstream, deadline });
    this.checker ??= setInterval(() => void this.check(), CONSOLE_CHECK_INTERVAL_MS).unref();

    copyBothWays(ws, upstream, (toClient, fromClient) => {
      this.bytesToClient += toClient;
      this.bytesFromClient += fromClient;
    });
    upstream.on('close', () => this.end(sessionId, 1000, 'The console server closed the connection.'));
    ws.on('close', () => this.end(sessionId));
  }

  /** A redeemed session that never became a connection (the upstream could not be reached). */
  async forget(sessionId: string): Promise<void> {
    await this.sessions.close(sessionId).catch(() => undefined);
  }

  /** Ends every console of this replica (shutdown): clients see "going away" and may reconnect elsewhere. */
  async onModuleDestroy(): Promise<void> {
    await Promise.all([...this.open.keys()].map((id) => this.end(id, 1001, 'The server is shutting down.')));
  }

  private async end(sessionId: string, code?: number, reason?: string): Promise<void> {
    const session = this.open.get(sessionId);
    if (!session) return;
    this.open.delete(sessionId);
    clearTimeout(session.deadline);
    if (!this.open.size && this.checker) {
      clearInterval(this.checker);
      this.checker = null;
    }
    session.upstream.destroy();
    if (session.ws.readyState === WebSocket.OPEN) {
      session.ws.close(code ?? 1000, reason);
      // A client that never answers the close handshake must not hold the socket (or a shutdown).
      setTimeout(() => session.ws.terminate(), CLOSE_GRACE_MS).unref();
    } else session.ws.terminate();
    await this.sessions.close(sessionId).catch((err: Error) => this.logger.warn(`Console ${sessionId} not marked closed: ${err.message}`));
  }

  private async check(): Promise<void> {
    const ids = [...this.open.keys()];
    if (!ids.length) return;
    try {
      const running = await this.sessions.keepAlive(ids);
      await Promise.all(ids.filter((id) => !running.has(id)).map((id) => this.end(id, 1000, 'The machine stopped.')));
    } catch (err) {
      this.logger.warn(`Open consoles not checked: ${(err as Error).message}`);
    }
  }
}
