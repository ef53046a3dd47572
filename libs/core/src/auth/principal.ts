export type Scope = 'read' | 'write';
export const ALL_SCOPES: readonly Scope[] = ['read', 'write'];

export type CredentialKind = 'access_token' | 'api_key';

/** A member's role on an account, highest first (docs/roles.md says which role may call which route). */
export type Role = 'owner' | 'admin' | 'member' | 'read_only';
export const ROLES: readonly Role[] = ['owner', 'admin', 'member', 'read_only'];

/** Whether `role` includes everything `needed` may do. */
export function roleAllows(role: Role, needed: Role): boolean {
  return ROLES.indexOf(role) <= ROLES.indexOf(needed);
}

/** The scopes a role may hold: a read-only member writes nothing, whatever the key says. */
export function scopesOfRole(role: Role): readonly Scope[] {
  return role === 'read_only' ? ['read'] : ALL_SCOPES;
}

/** Who is calling: set by the global bearer guard, read by controllers via @CurrentPrincipal(). */
export interface Principal {
  /** The account the request acts on (its resources, its activity log). */
  accountId: string;
  /** The person signed in: the login's own row in accounts (its email, password, 2FA and sessions). */
  loginId: string;
  /** The login's address, as the activity log names the member who acted. */
  email: string;
  /** The login's membership of the account; null when the login belongs to it no more (403 no_account). */
  memberId: string | null;
  role: Role | null;
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
