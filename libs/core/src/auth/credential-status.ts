import type { CredentialKind, Role } from './principal';

/** The credential a request was made with, by id: what outlives the request (a console) keeps this. */
export interface CredentialRef {
  accountId: string;
  kind: CredentialKind;
  /** The session id for an access token, the key id for an API key. */
  credentialId: string;
  /** The least role the holder needs on the account (a console: member); default: any member. */
  needs?: Role;
}

/** A credential that still works, and when it stops by itself (an API key's expiry; null: never). */
export interface LiveCredential {
  validUntil: Date | null;
}

/**
 * Whether a credential still works, asked by id long after its request: the port through which
 * an area that holds something open for a caller (a console) checks it again. The sessions and API
 * keys side implements it; the areas that ask never import it.
 */
export abstract class CredentialStatus {
  /** null when the credential was revoked, has expired, belongs to another account, or its member lost the role it needs. */
  abstract check(credential: CredentialRef): Promise<LiveCredential | null>;
}
