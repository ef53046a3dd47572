import { sign } from 'jsonwebtoken';
import { ApiKeyVerifier } from '@app/api-keys';
import { AppConfig } from '@app/core';
import { SessionsService } from '../sessions/sessions.service';
import { AccessTokens } from '../tokens/access-tokens';
import { CredentialVerifier } from './credential-verifier';
import { VerifiedCredentials } from './verified-credentials';

const SECRET = 'a-test-secret-that-is-long-enough-for-hs256';
const ACCOUNT = '5f0c6a52-7d0e-4b7e-9a51-2f4d8e0b1c11';
const SESSION = '0d3f3a3e-5b2c-4f8e-8b8a-6c1e2d3f4a5b';
const MEMBER = '7a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d';

function setup() {
  const accessTokens = new AccessTokens({ jwtSecret: SECRET, accessTokenTtlSeconds: 900 } as AppConfig);
  const read = jest.spyOn(accessTokens, 'read');
  let live = true;
  const grant = () => ({ expires_at: new Date(Date.now() + 86_400_000), email: 'ada@example.test', member_id: MEMBER, role: 'owner' });
  const sessions = { liveGrant: jest.fn(async () => (live ? grant() : null)) } as unknown as SessionsService;
  const apiKeys = { verify: jest.fn(async () => null) } as unknown as ApiKeyVerifier;
  // No DATABASE_URL: nothing is remembered between requests (the embedded database's behaviour).
  const verifier = new CredentialVerifier(apiKeys, accessTokens, sessions, new VerifiedCredentials({} as AppConfig));
  return { verifier, accessTokens, read, sessions, apiKeys, end: () => (live = false) };
}

describe('CredentialVerifier', () => {
  afterEach(() => jest.useRealTimers());

  it('checks a token signature once, and its session on every request', async () => {
    const { verifier, accessTokens, read, sessions } = setup();
    const token = accessTokens.issue({ loginId: ACCOUNT, accountId: ACCOUNT, sessionId: SESSION });
    for (let i = 0; i < 3; i++) {
      expect(await verifier.verify(token)).toEqual({
        accountId: ACCOUNT,
        loginId: ACCOUNT,
        email: 'ada@example.test',
        memberId: MEMBER,
        role: 'owner',
        kind: 'access_token',
        credentialId: SESSION,
        scopes: ['read', 'write'],
        expiresAt: null,
      });
    }
    expect(read).toHaveBeenCalledTimes(1);
    expect(sessions.liveGrant).toHaveBeenCalledTimes(3);
  });

  it('refuses a remembered token at once when its session ends', async () => {
    const { verifier, accessTokens, end } = setup();
    const token = accessTokens.issue({ loginId: ACCOUNT, accountId: ACCOUNT, sessionId: SESSION });
    expect(await verifier.verify(token)).not.toBeNull();
    end();
    expect(await verifier.verify(token)).toBeNull();
  });

  it('refuses a remembered token from the second its exp is reached, as jsonwebtoken does', async () => {
    const { verifier, read } = setup();
    const now = Math.floor(Date.now() / 1000);
    const token = sign({ sid: SESSION, typ: 'access' }, SECRET, {
      algorithm: 'HS256',
      subject: ACCOUNT,
      issuer: 'hosting-account-api',
      expiresIn: 60,
    });
    expect(await verifier.verify(token)).not.toBeNull();
    jest.useFakeTimers({ now: (now + 59) * 1000 });
    expect(await verifier.verify(token)).not.toBeNull();
    jest.setSystemTime((now + 60) * 1000);
    expect(await verifier.verify(token)).toBeNull();
    expect(read).toHaveBeenCalledTimes(2);
  });

  it('never remembers a token that fails: bad signature, wrong type, garbage', async () => {
    const { verifier, read, sessions } = setup();
    const forged = sign({ sid: SESSION, typ: 'access' }, 'another-secret-that-is-long-enough-too', {
      algorithm: 'HS256',
      subject: ACCOUNT,
      issuer: 'hosting-account-api',
      expiresIn: 60,
    });
    const refresh = sign({ sid: SESSION, typ: 'refresh' }, SECRET, {
      algorithm: 'HS256',
      subject: ACCOUNT,
      issuer: 'hosting-account-api',
      expiresIn: 60,
    });
    for (const token of [forged, forged, refresh, refresh, 'not.a.token', 'garbage']) expect(await verifier.verify(token)).toBeNull();
    expect(read).toHaveBeenCalledTimes(6);
    expect(sessions.liveGrant).not.toHaveBeenCalled();
  });

  it("reads a token made before teams as acting on its login's own account", async () => {
    const { verifier, sessions } = setup();
    const token = sign({ sid: SESSION, typ: 'access' }, SECRET, {
      algorithm: 'HS256',
      subject: ACCOUNT,
      issuer: 'hosting-account-api',
      expiresIn: 60,
    });
    expect(await verifier.verify(token)).toMatchObject({ accountId: ACCOUNT, loginId: ACCOUNT });
    expect(sessions.liveGrant).toHaveBeenCalledWith(SESSION, ACCOUNT, ACCOUNT);
  });

  it('looks API keys up on every request', async () => {
    const { verifier, apiKeys } = setup();
    await verifier.verify('hpk_whatever');
    await verifier.verify('hpk_whatever');
    expect(apiKeys.verify).toHaveBeenCalledTimes(2);
  });
});
