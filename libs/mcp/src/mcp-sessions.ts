import { BeforeApplicationShutdown, Injectable, Logger } from '@nestjs/common';
import type { Request, Response } from 'express';
import { randomUUID } from 'node:crypto';
import { CredentialHold, CredentialRechecks, CredentialStatus, Principal } from '@app/core';
import { ClientRelay } from './client-relay';
import { Loopback } from './loopback';
import { McpRuntime, mcpRuntime } from './mcp-runtime';
import { McpSession } from './mcp-session';
import { OpenApiDocumentSource } from './openapi-document';

const BEARER = /^Bearer (\S+)$/i;
/** Sessions one account may hold on one process; a new one ends the oldest. */
export const MAX_SESSIONS_PER_ACCOUNT = 10;
/** A session nobody used for this long is ended (clients start a new one on a 404). */
export const IDLE_SESSION_MS = 30 * 60_000;
/** Every session's credential is verified again this long after its last check, whatever was announced. */
const RECHECK_MS = 60_000;
const RECHECK_CONCURRENCY = 4;

/**
 * The MCP sessions of this process (Streamable HTTP at /mcp). Each has its own SDK client that
 * calls this API on loopback with the caller's bearer, so every tool call is an ordinary request:
 * scopes, ownership, rate limits, idempotency, the activity log and webhooks. A session ends when
 * its client deletes it, its credential is revoked or expires (as notification streams and
 * consoles end), it is idle too long, or the server shuts down.
 */
@Injectable()
export class McpSessions implements BeforeApplicationShutdown {
  private readonly logger = new Logger('Mcp');
  private readonly sessions = new Map<string, McpSession>();
  private readonly holds = new Map<McpSession, CredentialHold>();
  private readonly rechecks = new CredentialRechecks(this.logger, {
    everyMs: RECHECK_MS,
    concurrency: RECHECK_CONCURRENCY,
    what: 'MCP session',
  });
  private readonly idleSweep = setInterval(() => this.endIdle(), RECHECK_MS).unref();

  constructor(
    private readonly loopback: Loopback,
    private readonly relay: ClientRelay,
    private readonly credentials: CredentialStatus,
    private readonly document: OpenApiDocumentSource,
  ) {}

  count(accountId?: string): number {
    return [...this.sessions.values()].filter((s) => !accountId || s.accountId === accountId).length;
  }

  async handle(principal: Principal, req: Request, res: Response): Promise<void> {
    const bearer = BEARER.exec(req.headers.authorization ?? '')?.[1] ?? '';
    const id = req.headers['mcp-session-id'];
    if (typeof id === 'string') {
      const session = this.sessions.get(id);
      // Another credential's session is as unknown as a missing one.
      if (!session || !session.belongsTo(principal)) return jsonRpcError(res, 404, -32001, 'Session not found: start a new one.');
      session.seen(bearer);
      return session.transport.handleRequest(req, res, req.body);
    }
    const runtime = await mcpRuntime();
    if (req.method !== 'POST' || !runtime.isInitializeRequest(req.body))
      return jsonRpcError(res, 400, -32000, 'No session: send an initialize request first (without Mcp-Session-Id).');
    const session = this.open(runtime, principal, bearer, req);
    await session.server.connect(session.transport);
    await session.transport.handleRequest(req, res, req.body);
  }

  /** After an announcement: the account's sessions on this process check their credential now. */
  recheck(accountId: string): Promise<void> {
    return this.rechecks.recheck(accountId);
  }

  recheckAll(): Promise<void> {
    return this.rechecks.recheckAll();
  }

  async beforeApplicationShutdown(): Promise<void> {
    clearInterval(this.idleSweep);
    this.rechecks.stop();
    await Promise.all([...this.sessions.values()].map((s) => this.end(s, 'shutdown')));
  }

  private open(runtime: McpRuntime, principal: Principal, bearer: string, req: Request): McpSession {
    const transport: InstanceType<McpRuntime['Transport']> = new runtime.Transport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id: string): void => this.register(session, id),
    });
    const session: McpSession = new McpSession(principal, bearer, transport);
    transport.onclose = () => this.forget(session);
    const api = runtime.createHostingClient({
      baseUrl: this.loopback.url(),
      token: () => session.bearer,
      headers: this.relay.headersFor(req.ip),
      // A 429 is the agent's to wait out: the tool error says when.
      retry: { onRetry: ({ response }) => (response?.status === 429 ? false : undefined) },
    });
    session.server = runtime.createMcpServer(api, {
      scopes: principal.scopes,
      userAgent: runtime.userAgent,
      openApiDocument: () => this.document.get(),
    });
    return session;
  }

  private register(session: McpSession, id: string): void {
    session.id = id;
    this.expireAt(session, session.keyExpiresAt);
    const mine = [...this.sessions.values()].filter((s) => s.accountId === session.accountId);
    for (const oldest of mine.slice(0, Math.max(0, mine.length - MAX_SESSIONS_PER_ACCOUNT + 1))) void this.end(oldest, 'too many sessions');
    this.sessions.set(id, session);
    const hold: CredentialHold = {
      accountId: session.accountId,
      key: `${session.credential.kind}:${session.credential.credentialId}`,
      stillValid: async () => {
        const live = await this.credentials.check(session.credential);
        if (live) this.expireAt(session, live.validUntil);
        return live !== null;
      },
      ended: () => this.end(session, 'credential revoked or expired'),
    };
    this.holds.set(session, hold);
    this.rechecks.add(hold);
    // A revocation announced between the guard's check and now found nothing here to end.
    void this.rechecks.verify([hold]);
  }

  private endIdle(): void {
    const idleSince = Date.now() - IDLE_SESSION_MS;
    for (const session of this.sessions.values()) if (session.lastSeen < idleSince) void this.end(session, 'idle');
  }

  private expireAt(session: McpSession, validUntil: Date | null): void {
    if (!validUntil || session.expiry) return;
    session.expiry = setTimeout(() => void this.end(session, 'credential expired'), Math.max(0, validUntil.getTime() - Date.now())).unref();
  }

  private async end(session: McpSession, reason: string): Promise<void> {
    if (!this.forget(session)) return;
    this.logger.log(`MCP session ${session.id} ended: ${reason}`);
    await session.server.close().catch(() => undefined);
  }

  /** True when the session was still known (so only the first ending does the work). */
  private forget(session: McpSession): boolean {
    if (session.expiry) clearTimeout(session.expiry);
    const hold = this.holds.get(session);
    if (hold) this.rechecks.drop(hold);
    this.holds.delete(session);
    return this.sessions.delete(session.id);
  }
}

function jsonRpcError(res: Response, status: number, code: number, message: string): void {
  res.status(status).json({ jsonrpc: '2.0', error: { code, message }, id: null });
}
