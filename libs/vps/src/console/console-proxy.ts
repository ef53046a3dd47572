import { randomUUID } from 'node:crypto';
import type { IncomingMessage, Server } from 'node:http';
import { connect, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { WebSocketServer } from 'ws';
import { AppConfig, PROBLEM_TITLES, ProblemCode, originOf } from '@app/core';
import type { ConsoleTarget } from '../compute/compute-provider';
import { ConsoleConnections } from './console-connections';
import { ConsoleService } from './console.service';
import { UpstreamReads } from './upstream-reads';

const UPSTREAM_CONNECT_TIMEOUT_MS = 5_000;
const TOKEN = /^[A-Za-z0-9_-]{43}$/;
const WS_KEY = /^[A-Za-z0-9+/]{22}==$/;

class Refusal {
  constructor(
    readonly status: number,
    readonly code: ProblemCode | 'hypervisor_unavailable',
    readonly detail: string,
  ) {}
}

/**
 * The console WebSocket at /console?token=..., on the API's own HTTP server: redeems the token,
 * connects to the session's VNC target and hands both to ConsoleConnections. Anything wrong is
 * refused with a problem response before the upgrade, and before any upstream connection. A
 * browser page may open it only from an allowed origin (PUBLIC_URL's, or one of CORS_ORIGINS):
 * a page elsewhere holding a stolen console URL gets a 403 and the token stays unspent.
 */
@Injectable()
export class ConsoleProxy implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('ConsoleProxy');
  private readonly wss = new WebSocketServer({
    noServer: true,
    clientTracking: false,
    perMessageDeflate: false,
    maxPayload: 1 << 20,
    // noVNC may ask for the historical "binary" subprotocol; raw binary frames are all we speak.
    handleProtocols: (protocols) => (protocols.has('binary') ? 'binary' : false),
  });
  private server: Server | null = null;
  private readonly allowedOrigins: ReadonlySet<string>;

  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly consoles: ConsoleService,
    private readonly connections: ConsoleConnections,
    config: AppConfig,
  ) {
    this.allowedOrigins = new Set([config.publicUrl, ...config.corsOrigins].map(originOf).filter((o): o is string => o !== null));
  }

  onApplicationBootstrap(): void {
    this.server = (this.adapterHost.httpAdapter?.getHttpServer() as Server | undefined) ?? null;
    this.server?.on('upgrade', this.onUpgrade);
  }

  onApplicationShutdown(): void {
    this.server?.off('upgrade', this.onUpgrade);
    this.wss.close();
  }

  private readonly onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer): void => {
    socket.on('error', () => socket.destroy());
    this.upgrade(req, socket, head).catch((err: unknown) => {
      if (err instanceof Refusal) return refuse(socket, err);
      this.logger.warn(`Console upgrade failed: ${(err as Error).message}`);
      refuse(socket, new Refusal(503, 'unavailable', 'The console is temporarily unavailable. Retry shortly.'));
    });
  };

  private async upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname !== '/console') throw new Refusal(404, 'not_found', `No WebSocket endpoint at ${url.pathname}.`);
    const key = req.headers['sec-websocket-key'];
    if (
      req.method !== 'GET' ||
      req.headers.upgrade?.toLowerCase() !== 'websocket' ||
      typeof key !== 'string' ||
      !WS_KEY.test(key) ||
      req.headers['sec-websocket-version'] !== '13'
    ) {
      throw new Refusal(400, 'invalid_input', 'Expected a WebSocket (version 13) handshake.');
    }
    const origin = req.headers.origin;
    // No Origin: not a browser (noVNC in a page always sends one), so no page can ride on it.
    if (origin !== undefined && !this.allowedOrigins.has(originOf(origin) ?? ''))
      throw new Refusal(403, 'forbidden', 'The console cannot be opened from this origin.');
    const token = url.searchParams.get('token');
    if (!token)
      throw new Refusal(400, 'invalid_input', 'The console URL needs its token: GET /api/services/{id}/instance/console gives one.');
    const redemption = TOKEN.test(token) ? await this.consoles.redeem(token) : ({ outcome: 'refused' } as const);
    if (redemption.outcome === 'refused')
      throw new Refusal(401, 'unauthorized', 'The console token is unknown, already used or expired; ask for a new console.');
    if (redemption.outcome === 'revoked')
      throw new Refusal(
        401,
        'unauthorized',
        'The credential this console token was issued to was revoked or has expired; sign in again and ask for a new console.',
      );
    if (redemption.outcome === 'limit') throw new Refusal(409, 'quota_exceeded', this.consoles.limitReached().detail);

    const reads = new UpstreamReads();
    const upstream = await connectUpstream(redemption.target, reads).catch(() => null);
    if (!upstream || socket.destroyed) {
      upstream?.destroy();
      await this.connections.forget(redemption.sessionId);
      throw new Refusal(503, 'hypervisor_unavailable', "The machine's console could not be reached. Retry shortly.");
    }
    this.wss.handleUpgrade(req, socket, head, (ws) => this.connections.bridge(redemption, ws, upstream, reads));
  }
}

/** Connected and not read from until the bridge pipes it (the VNC server speaks first). */
function connectUpstream(target: ConsoleTarget, reads: UpstreamReads): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: target.host, port: target.port, noDelay: true, onread: reads.onread }).pause();
    const timer = setTimeout(() => socket.destroy(new Error('upstream connect timeout')), UPSTREAM_CONNECT_TIMEOUT_MS);
    socket.once('connect', () => {
      clearTimeout(timer);
      resolve(socket);
    });
    socket.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
  });
}

function refuse(socket: Duplex, refusal: Refusal): void {
  if (socket.destroyed) return;
  const requestId = randomUUID();
  const body = JSON.stringify({
    type: `/problems/${refusal.code.replace(/_/g, '-')}`,
    title: PROBLEM_TITLES[refusal.status] ?? 'Error',
    status: refusal.status,
    detail: refusal.detail,
    code: refusal.code,
    requestId,
  });
  socket.end(
    `HTTP/1.1 ${refusal.status} ${PROBLEM_TITLES[refusal.status] ?? 'Error'}\r\n` +
      `Content-Type: application/problem+json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
      `Cache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\nX-Request-Id: ${requestId}\r\nConnection: close\r\n\r\n${body}`,
  );
}
