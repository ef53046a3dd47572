export type Scope = 'read' | 'write';
export const ALL_SCOPES: readonly Scope[] = ['read', 'write'];

export type CredentialKind = 'access_token' | 'api_key';

/** Who is calling: set by the global bearer guard, read by controllers via @CurrentPrincipal(). */
export interface Principal {
  accountId: string;
  kind: CredentialKind;
  /** The session id for an access token, the key id for an API key. */
  credentialId: string;
  scopes: readonly Scope[];
  /** An API key's own expiry; keys it creates may not outlive it. */
  expiresAt: Date | null;
  /** An API key's name (the activity log's actor name); absent for an access token. */
  name?: string;
  /** The request it came with (the activity log's ip, user agent and request id). */
  request?: RequestFacts;
}

/** Where a request came from, as recorded on a session. */
export interface ClientInfo {
  ip: string | null;
  userAgent: string | null;
}

/**
 * A request's facts as the activity log records them. Passed explicitly (on the Principal, or as
 * an argument on public routes): an AsyncLocalStorage context costs every request Node's promise hooks.
 */
export interface RequestFacts extends ClientInfo {
  requestId: string | null;
}
