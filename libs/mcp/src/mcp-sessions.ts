import { BeforeApplicationShutdown, Injectable, Logger } from '@nestjs/common';
import type { Request, Response } from 'express';
import { randomUUID } from 'node:crypto';
import { CredentialHold, CredentialRechecks, CredentialStatus, Principal, Problem, scopesOfRole } from '@app/core';
import { ClientRelay } from './client-relay';
import { Loopback } from './loopback';
import { McpOrigins } from './mcp-origins';
import { McpRuntime, mcpRuntime } from './mcp-runtime';
import { McpSession } from './mcp-session';
import { OpenApiDocumentSource } from './openapi-document';

const BEARER = /^Bearer (\S+)$/i;
/**
 * Sessions one credential, and one account, may hold on one process. Past either, a new session
 * takes the place of one of its own credential's that is not running a request, or is refused: a
 * credential (a read-only key) never ends another's session.
 */
export const MAX_SESSIONS_PER_CREDENTIAL = 10;
export const MAX_SESSIONS_PER_ACCOUNT = 50;
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
  /** Sessions whose initialize is under way: they count toward the caps already. */
  private readonly opening = new Set<McpSession>();
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
    private readonly origins: McpOrigins,
  ) {}

  count(accountId?: string): number {
    return [...this.sessions.values()].filter((s) => !accountId || s.accountId === accountId).length;
  }

  async handle(principal: Principal, req: Request, res: Response): Promise<void> {
    this.origins.check(req.headers.origin);
    // A batch would be 100 messages for one request of the rate budget; MCP 2025-06-18 has none.
    if (Array.isArray(req.body))
      return jsonRpcError(
        res,
        400,
        -32600,
        'Invalid Request: JSON-RPC batches are not supported (MCP 2025-06-18): send one message per request.',
      );
    const bearer = BEARER.exec(req.headers.authorization ?? '')?.[1] ?? '';
    const id = req.headers['mcp-session-id'];
    if (typeof id === 'string') {
      const session = this.sessions.get(id);
      // Another credential's session is as unknown as a missing one.
      if (!session || !session.belongsTo(principal)) return jsonRpcError(res, 404, -32001, 'Session not found: start a new one.');
      session.seen(bearer);
      const reused = session.requests.admit(req.body);
      if (reused !== null)
        return jsonRpcError(
          res,
          400,
          -32600,
          `Invalid Request: id ${JSON.stringify(reused)} belongs to a request of this session still running: give each request its own id.`,
        );
      await session.transport.handleRequest(req, res, req.body);
      if (res.statusCode >= 400) session.requests.refused(req.body);
      return;
    }
    const runtime = await mcpRuntime();
    if (req.method !== 'POST' || !runtime.isInitializeRequest(req.body))
      return jsonRpcError(res, 400, -32000, 'No session: send an initialize request first (without Mcp-Session-Id).');
    this.makeRoomFor(principal);
    const session = this.open(runtime, principal, bearer, req);
    this.opening.add(session);
    try {
      await session.server.connect(session.transport);
      await session.transport.handleRequest(req, res, req.body);
    } finally {
      this.opening.delete(session);
      // The transport refused the initialize: nothing registered the session.
      if (!session.id) await session.server.close().catch(() => undefined);
    }
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

  /**
   * Past a cap, room is made only from the caller's own credential: its least recently used session
   * with no request running ends (a client that never deletes its sessions, such as the inspector's
   * CLI, keeps working). When every one of them is running a request, the new session is refused.
   */
  private makeRoomFor(principal: Principal): void {
    const held = [...this.sessions.values(), ...this.opening];
    const mine = held.filter((s) => s.belongsTo(principal));
    const full =
      mine.length >= MAX_SESSIONS_PER_CREDENTIAL
        ? `This credential holds ${MAX_SESSIONS_PER_CREDENTIAL} MCP sessions on this server, each running a request`
        : held.filter((s) => s.accountId === principal.accountId).length >= MAX_SESSIONS_PER_ACCOUNT
          ? `The account holds ${MAX_SESSIONS_PER_ACCOUNT} MCP sessions on this server, and none of this credential's is free to end`
          : null;
    if (!full) return;
    const idle = mine.filter((s) => s.id && !s.requests.busy).sort((a, b) => a.lastSeen - b.lastSeen)[0];
    if (idle) return void this.end(idle, 'made room for a new session of its credential');
    throw Problem.conflict(
      'quota_exceeded',
      `${full}: wait for a request to finish, or end a session (DELETE /mcp with its Mcp-Session-Id).`,
    );
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
      // Tools the member's role forbids are not offered (the guard would refuse them anyway).
      scopes: principal.role ? principal.scopes.filter((scope) => scopesOfRole(principal.role!).includes(scope)) : [],
      userAgent: runtime.userAgent,
      openApiDocument: () => this.document.get(),
    });
    return session;
  }

  private register(session: McpSession, id: string): void {
    session.id = id;
    this.expireAt(session, session.keyExpiresAt);
    this.sessions.set(id, session);
    const hold: CredentialHold = {
      accountId: session.accountId,
      loginId: session.loginId,
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
