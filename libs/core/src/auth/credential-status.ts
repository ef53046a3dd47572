import type { CredentialKind } from './principal';

/** The credential a request was made with, by id: what outlives the request (a console) keeps this. */
export interface CredentialRef {
  accountId: string;
  kind: CredentialKind;
  /** The session id for an access token, the key id for an API key. */
  credentialId: string;
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
  /** null when the credential was revoked, has expired, or belongs to another account. */
  abstract check(credential: CredentialRef): Promise<LiveCredential | null>;
}
