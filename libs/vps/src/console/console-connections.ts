import type { Socket } from 'node:net';
import { Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import { WebSocket } from 'ws';
import { AppConfig, CredentialHold, CredentialRechecks, CredentialRef, CredentialStatus } from '@app/core';
import { ConsoleSessionsRepository } from './console-sessions.repository';
import type { OpenedConsole } from './console.service';
import { copyBothWays } from './copy-both-ways';
import type { UpstreamReads } from './upstream-reads';

/** How often this replica refreshes its open consoles and ends those whose machine stopped. */
export const CONSOLE_CHECK_INTERVAL_MS = 5_000;
/** A backstop to the announcements: every open console's credential is verified again this often. */
export const CONSOLE_CREDENTIAL_RECHECK_MS = 60_000;
const CLOSE_GRACE_MS = 2_000;
const RECHECK_CONCURRENCY = 4;

/** Why the server ended a console: the WebSocket close code and reason the client sees. */
export const CONSOLE_ENDINGS = {
  timeLimit: { code: 1000, reason: 'The console session reached its time limit.' },
  upstreamClosed: { code: 1000, reason: 'The console server closed the connection.' },
  machineStopped: { code: 1000, reason: 'The machine stopped.' },
  serviceInactive: { code: 1000, reason: 'The service is no longer active.' },
  // 1008 (policy violation): the client must not reconnect with the same credential.
  credentialEnded: { code: 1008, reason: 'The credential that opened this console was revoked or has expired.' },
  shutdown: { code: 1001, reason: 'The server is shutting down.' },
} as const;
type Ending = (typeof CONSOLE_ENDINGS)[keyof typeof CONSOLE_ENDINGS];

interface OpenConsole extends CredentialHold {
  ws: WebSocket;
  upstream: Socket;
  credential: CredentialRef;
  deadline: NodeJS.Timeout;
}

/**
 * The consoles open on this replica: each copies bytes between a WebSocket and the upstream VNC
 * socket, with backpressure both ways, until either side closes, CONSOLE_MAX_SECONDS pass, the
 * machine stops, or the credential that opened it stops working (revoked: announced to every
 * replica, see ConsoleRechecks; expired: a timer). The database knows them too, for the
 * per-account limit across replicas.
 */
@Injectable()
export class ConsoleConnections implements OnModuleDestroy {
  private readonly logger = new Logger('Console');
  private readonly open = new Map<string, OpenConsole>();
  private checker: NodeJS.Timeout | null = null;
  private readonly rechecks = new CredentialRechecks<OpenConsole>(this.logger, {
    everyMs: CONSOLE_CREDENTIAL_RECHECK_MS,
    concurrency: RECHECK_CONCURRENCY,
    what: 'console',
  });
  bytesToClient = 0;
  bytesFromClient = 0;

  constructor(
    private readonly sessions: ConsoleSessionsRepository,
    private readonly config: AppConfig,
    private readonly credentials: CredentialStatus,
  ) {}

  get openCount(): number {
    return this.open.size;
  }

  /** The account's consoles open on this replica. */
  openFor(accountId: string): number {
    return [...this.open.values()].filter((open) => open.credential.accountId === accountId).length;
  }

  bridge(
    opened: Pick<OpenedConsole, 'sessionId' | 'credential' | 'validUntil'>,
    ws: WebSocket,
    upstream: Socket,
    reads: UpstreamReads,
  ): void {
    const { sessionId, credential, validUntil } = opened;
    const limitAt = Date.now() + this.config.consoleMaxSeconds * 1000;
    const expires = validUntil !== null && validUntil.getTime() < limitAt;
    const deadline = setTimeout(
      () => this.end(sessionId, expires ? CONSOLE_ENDINGS.credentialEnded : CONSOLE_ENDINGS.timeLimit),
      Math.max(0, (expires ? validUntil.getTime() : limitAt) - Date.now()),
    );
    const open: OpenConsole = {
      ws,
      upstream,
      credential,
      deadline,
      accountId: credential.accountId,
      key: `${credential.kind}:${credential.credentialId}`,
      stillValid: async () => (await this.credentials.check(credential)) !== null,
      ended: () => this.end(sessionId, CONSOLE_ENDINGS.credentialEnded),
    };
    this.open.set(sessionId, open);
    this.rechecks.add(open);
    this.checker ??= setInterval(() => void this.check(), CONSOLE_CHECK_INTERVAL_MS).unref();

    copyBothWays(ws, upstream, reads, (toClient, fromClient) => {
      this.bytesToClient += toClient;
      this.bytesFromClient += fromClient;
    });
    upstream.on('close', () => this.end(sessionId, CONSOLE_ENDINGS.upstreamClosed));
    ws.on('close', () => this.end(sessionId));
    // A revocation announced between the redemption's check and now found nothing here to close.
    void this.rechecks.verify([open]);
  }

  /** A redeemed session that never became a connection (the upstream could not be reached). */
  async forget(sessionId: string): Promise<void> {
    await this.sessions.close(sessionId).catch(() => undefined);
  }

  /** After an announcement: the account's consoles on this replica check their credential and machine now. */
  async recheck(accountId: string): Promise<void> {
    const ids = [...this.open].filter(([, open]) => open.credential.accountId === accountId).map(([id]) => id);
    if (!ids.length) return;
    await Promise.all([this.rechecks.recheck(accountId), this.refresh(ids)]);
  }

  /** After missed announcements (the LISTEN connection was down): every console checks now. */
  async recheckAll(): Promise<void> {
    await Promise.all([this.rechecks.recheckAll(), this.refresh([...this.open.keys()])]);
  }

  /** Ends every console of this replica (shutdown): clients see "going away" and may reconnect elsewhere. */
  async onModuleDestroy(): Promise<void> {
    await Promise.all([...this.open.keys()].map((id) => this.end(id, CONSOLE_ENDINGS.shutdown)));
  }

  private async end(sessionId: string, ending?: Ending): Promise<void> {
    const session = this.open.get(sessionId);
    if (!session) return;
    this.open.delete(sessionId);
    this.rechecks.drop(session);
    clearTimeout(session.deadline);
    if (!this.open.size && this.checker) {
      clearInterval(this.checker);
      this.checker = null;
    }
    session.upstream.destroy();
    if (session.ws.readyState === WebSocket.OPEN) {
      session.ws.close(ending?.code ?? 1000, ending?.reason);
      // A client that never answers the close handshake must not hold the socket (or a shutdown).
      setTimeout(() => session.ws.terminate(), CLOSE_GRACE_MS).unref();
    } else session.ws.terminate();
    await this.sessions.close(sessionId).catch((err: Error) => this.logger.warn(`Console ${sessionId} not marked closed: ${err.message}`));
  }

  /** Keeps the consoles counted in the database and ends those whose machine stopped or service was suspended. */
  private async refresh(ids: string[]): Promise<void> {
    try {
      const ending = await this.sessions.keepAlive(ids);
      await Promise.all(
        [...ending].map(([id, why]) => this.end(id, why === 'inactive' ? CONSOLE_ENDINGS.serviceInactive : CONSOLE_ENDINGS.machineStopped)),
      );
    } catch (err) {
      this.logger.warn(`Open consoles not checked: ${(err as Error).message}`);
    }
  }

  private async check(): Promise<void> {
    const ids = [...this.open.keys()];
    if (ids.length) await this.refresh(ids);
  }
}
