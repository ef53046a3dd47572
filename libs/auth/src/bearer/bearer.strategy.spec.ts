import passport from 'passport';
import type { Request } from 'express';
import { Principal } from '@app/core';
import { BearerStrategy } from './bearer.strategy';
import { CredentialVerifier } from './credential-verifier';

const PRINCIPAL: Principal = {
  accountId: 'a',
  loginId: 'a',
  email: 'a@example.test',
  memberId: 'm',
  role: 'owner',
  kind: 'api_key',
  credentialId: 'k',
  scopes: ['read'],
  expiresAt: null,
};
const DOWN = new Error('Connection terminated unexpectedly');

/** Verifies "good", refuses anything else, fails for "down" as a database outage would. */
const verifier = {
  verify: async (token: string) => {
    if (token === 'down') throw DOWN;
    return token === 'good' ? PRINCIPAL : null;
  },
} as unknown as CredentialVerifier;

type Outcome = { principal: Principal | null } | { error: unknown };

/** What the passport path decides (as @nestjs/passport's AuthGuard calls it). */
function throughPassport(req: Partial<Request>): Promise<Outcome> {
  return new Promise((resolve) => {
    passport.authenticate('bearer', { session: false }, (err: unknown, user: Principal | false) =>
      resolve(err ? { error: err } : { principal: user || null }),
    )(req, {}, (err: unknown) => resolve({ error: err }));
  });
}

async function direct(strategy: BearerStrategy, req: Partial<Request>): Promise<Outcome> {
  try {
    return { principal: await strategy.principalFor(req as Request) };
  } catch (error) {
    return { error };
  }
}

const cases: [string, Partial<Request>][] = [
  ['no header', { headers: {} }],
  ['a good key', { headers: { authorization: 'Bearer good' } }],
  ['a lower-case scheme', { headers: { authorization: 'bearer good' } }],
  ['an unknown key', { headers: { authorization: 'Bearer bad' } }],
  ['two spaces', { headers: { authorization: 'Bearer  good' } }],
  ['a tab', { headers: { authorization: 'Bearer\tgood' } }],
  ['three parts', { headers: { authorization: 'Bearer good more' } }],
  ['another scheme', { headers: { authorization: 'Basic Z29vZDpnb29k' } }],
  ['an empty header', { headers: { authorization: '' } }],
  ['no token', { headers: { authorization: 'Bearer ' } }],
  ['a non-ASCII token', { headers: { authorization: 'Bearer göod' } }],
  ['a token over 4096 characters', { headers: { authorization: `Bearer ${'g'.repeat(4097)}` } }],
  ['the header and a query token', { headers: { authorization: 'Bearer good' }, query: { access_token: 'good' } }],
  ['the header and an empty query token', { headers: { authorization: 'Bearer good' }, query: { access_token: '' } }],
  ['the header and a body token', { headers: { authorization: 'Bearer good' }, body: { access_token: 'other' } }],
  ['only a query token', { headers: {}, query: { access_token: 'good' } }],
  ['only a body token', { headers: {}, body: { access_token: 'good' } }],
  ['another scheme and a query token', { headers: { authorization: 'Basic x' }, query: { access_token: 'good' } }],
  ['a database outage', { headers: { authorization: 'Bearer down' } }],
];

describe('BearerStrategy', () => {
  const strategy = new BearerStrategy(verifier);

  it.each(cases)('decides like passport-http-bearer for %s', async (_name, req) => {
    const request = { method: 'GET', query: {}, ...req };
    expect(await direct(strategy, request)).toEqual(await throughPassport(request));
  });

  it('lets only the good header through, and passes a database failure on', async () => {
    expect(await direct(strategy, { headers: { authorization: 'Bearer good' }, query: {} })).toEqual({ principal: PRINCIPAL });
    expect(await direct(strategy, { headers: { authorization: 'Bearer down' }, query: {} })).toEqual({ error: DOWN });
  });
});
