import { Principal, Problem } from '@app/core';

/** The session of an access token; API keys (the automation path) get 403, as for logout. */
export function currentSessionOf(principal: Principal): string {
  if (principal.kind !== 'access_token') {
    throw new Problem(403, 'forbidden', 'This operation needs an access token from a login, not an API key.');
  }
  return principal.credentialId;
}
