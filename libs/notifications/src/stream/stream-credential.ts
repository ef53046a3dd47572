import type { Principal } from '@app/core';

/** What a stream needs to know about the credential it was opened with. */
export interface StreamCredential {
  principal: Principal;
  /** The same for every stream opened with the same bearer: one check answers for all of them. */
  key: string;
  /** When the credential stops working by itself (token exp, key expiry); null: never. */
  validUntil: Date | null;
  /** Verifies the credential again (revoked key, ended session, changed password). */
  stillValid(): Promise<boolean>;
}

/** Last events of a stream that ends for a reason of its own; the client acts on `code`. */
export const STREAM_ENDINGS = {
  credentialInvalid: {
    event: 'error',
    data: {
      code: 'unauthorized',
      detail: 'The credential of this stream is no longer valid: refresh the access token or use a live API key, then reconnect.',
    },
  },
  tooManyStreams: {
    event: 'error',
    data: { code: 'too_many_streams', detail: "A newer stream of this account took this one's place." },
  },
  maxLifetime: { event: 'reconnect', data: { reason: 'max_lifetime' } },
} as const;
