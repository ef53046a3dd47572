import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { CredentialRef, Principal } from '@app/core';
import { SessionRequests } from './session-requests';

/**
 * One MCP session: the transport, the server and the credential it was opened with. Every request
 * of the session must come with that same credential (an access token may be refreshed: its
 * session stays the same), and the latest bearer is what the session's calls carry.
 */
export class McpSession {
  id = '';
  bearer: string;
  lastSeen = Date.now();
  readonly credential: CredentialRef;
  readonly loginId: string;
  /** An API key's own expiry (null: none, or an access token, whose session is checked instead). */
  readonly keyExpiresAt: Date | null;
  server!: McpServer;
  expiry: NodeJS.Timeout | null = null;
  readonly requests: SessionRequests;

  constructor(
    principal: Principal,
    bearer: string,
    readonly transport: StreamableHTTPServerTransport,
  ) {
    this.credential = { accountId: principal.accountId, kind: principal.kind, credentialId: principal.credentialId };
    this.loginId = principal.loginId;
    this.bearer = bearer;
    this.keyExpiresAt = principal.kind === 'api_key' ? principal.expiresAt : null;
    this.requests = new SessionRequests(transport);
  }

  get accountId(): string {
    return this.credential.accountId;
  }

  belongsTo(principal: Principal): boolean {
    return (
      principal.accountId === this.credential.accountId &&
      principal.kind === this.credential.kind &&
      principal.credentialId === this.credential.credentialId
    );
  }

  seen(bearer: string): void {
    this.bearer = bearer;
    this.lastSeen = Date.now();
  }
}
