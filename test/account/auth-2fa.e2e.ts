import { generate } from 'otplib';
import request from 'supertest';
import { createAccount, TestAccount } from '../factories/accounts';
import { runCliIn } from '../support/run-cli-in-app';
import { startTestApp, TestApp } from '../support/test-app';

/** The code of the time step `offset` steps from now (30 s each), computed from the secret. */
const codeAt = (secret: string, offset = 0) => generate({ secret, epoch: Math.floor(Date.now() / 1000) + offset * 30 });

const MFA_LIMIT = 10;

describe('Two-factor sign-in (TOTP)', () => {
  let t: TestApp;
  beforeAll(async () => (t = await startTestApp({ RATE_LIMIT_2FA_PER_MINUTE: String(MFA_LIMIT) })));
  afterAll(() => t.close());

  const login = (owner: TestAccount) =>
    request(t.http).post('/api/auth/login').send({ email: owner.email, password: owner.password }).expect(200);

  async function enableFor(owner: TestAccount): Promise<{ secret: string; recoveryCodes: string[] }> {
    const setup = await request(t.http).post('/api/auth/2fa/setup').set('Authorization', owner.bearer).expect(200);
    expect(setup.body.otpauthUri).toMatch(/^otpauth:\/\/totp\/.+secret=/);
    expect(setup.body.qrCodeDataUrl).toMatch(/^data:image\/svg\+xml;base64,/);
    expect(Buffer.from(setup.body.qrCodeDataUrl.split(',')[1], 'base64').toString()).toContain('<svg');
    const enabled = await request(t.http)
      .post('/api/auth/2fa/enable')
      .set('Authorization', owner.bearer)
      .send({ password: owner.password, code: await codeAt(setup.body.secret) })
      .expect(200);
    expect(enabled.headers['cache-control']).toBe('no-store');
    return { secret: setup.body.secret, recoveryCodes: enabled.body.recoveryCodes };
  }

  it('setup, enable (10 recovery codes, secret sealed at rest, other sessions ended), then login needs a code', async () => {
    const owner = await createAccount(t);
    const other = await login(owner);
    const { secret, recoveryCodes } = await enableFor(owner);
    expect(recoveryCodes).toHaveLength(10);
    expect(new Set(recoveryCodes).size).toBe(10);
    const [stored] = await t.db.query('SELECT secret_sealed FROM account_mfa WHERE account_id = $1', [owner.id]);
    expect(stored.secret_sealed).not.toContain(secret);
    const [codes] = await t.db.query('SELECT count(*)::int AS n FROM mfa_recovery_codes WHERE account_id = $1 AND code_hash = ANY($2)', [
      owner.id,
      recoveryCodes,
    ]);
    expect(codes.n).toBe(0);
    await request(t.http).get('/api/auth/me').set('Authorization', `Bearer ${other.body.accessToken}`).expect(401);
    await request(t.http).get('/api/auth/me').set('Authorization', owner.bearer).expect(200);

    const first = await login(owner);
    expect(first.body).toEqual({ mfaRequired: true, mfaToken: expect.stringMatching(/^hmf_/), expiresIn: 300 });
    expect(first.body.accessToken).toBeUndefined();
    await request(t.http).get('/api/auth/me').set('Authorization', `Bearer ${first.body.mfaToken}`).expect(401);
    const code = await codeAt(secret, 1);
    const done = await request(t.http).post('/api/auth/login/2fa').send({ mfaToken: first.body.mfaToken, code }).expect(200);
    expect(done.body).toMatchObject({ accessToken: expect.any(String), refreshToken: expect.any(String), account: { id: owner.id } });
    await request(t.http).get('/api/auth/me').set('Authorization', `Bearer ${done.body.accessToken}`).expect(200);
    // The mfaToken is single use, and a code is accepted once (no replay within its window).
    await request(t.http).post('/api/auth/login/2fa').send({ mfaToken: first.body.mfaToken, code }).expect(401);
    const again = await login(owner);
    const replay = await request(t.http).post('/api/auth/login/2fa').send({ mfaToken: again.body.mfaToken, code }).expect(401);
    expect(replay.body.code).toBe('invalid_code');
    // API keys are the automation path: unaffected.
    await request(t.http).get('/api/auth/me').set('Authorization', owner.keyBearer).expect(200);
  });

  // A stolen access token alone cannot turn 2FA on with someone else's authenticator.
  it('enable needs the password too: without it or with a wrong one 2FA stays off', async () => {
    const owner = await createAccount(t);
    const setup = await request(t.http).post('/api/auth/2fa/setup').set('Authorization', owner.bearer).expect(200);
    const enable = (body: object) => request(t.http).post('/api/auth/2fa/enable').set('Authorization', owner.bearer).send(body);
    const missing = await enable({ code: await codeAt(setup.body.secret) });
    expect(missing.status).toBe(400);
    expect(missing.body.errors.map((e: { field: string }) => e.field)).toContain('password');
    const wrong = await enable({ password: 'a guessed password', code: await codeAt(setup.body.secret) });
    expect(wrong.status).toBe(400);
    expect(wrong.body.errors).toEqual([{ field: 'password', message: 'is incorrect' }]);
    const [failed] = await t.db.query(
      `SELECT status, details FROM activity_events WHERE account_id = $1 AND action = 'auth.password_check_failed'`,
      [owner.id],
    );
    expect(failed).toEqual({ status: 'failed', details: { reason: 'wrong_password', operation: 'two_factor_enable' } });
    const plain = await login(owner);
    expect(plain.body.accessToken).toEqual(expect.any(String));
    await enable({ password: owner.password, code: await codeAt(setup.body.secret) }).expect(200);
    expect((await login(owner)).body.mfaRequired).toBe(true);
  });

  it('an account whose email nobody confirmed cannot set 2FA up (403 email_unverified)', async () => {
    const owner = await createAccount(t, { verified: false });
    const res = await request(t.http).post('/api/auth/2fa/setup').set('Authorization', owner.bearer).expect(403);
    expect(res.body.code).toBe('email_unverified');
  });

  it('the operator turns 2FA off for a locked-out owner with account:disable-2fa, ending every session', async () => {
    const owner = await createAccount(t);
    await enableFor(owner);
    const done = await runCliIn(t.app, ['account:disable-2fa', '--email', owner.email.toUpperCase()]);
    expect(done).toMatchObject({ code: 0, stderr: '' });
    expect(done.lines).toEqual([{ id: owner.id, email: owner.email, twoFactor: 'off', changed: true, sessionsEnded: true }]);
    await request(t.http).get('/api/auth/me').set('Authorization', owner.bearer).expect(401);
    const plain = await login(owner);
    expect(plain.body.accessToken).toEqual(expect.any(String));
    const [entry] = await t.db.query(
      `SELECT actor_type, details FROM activity_events WHERE account_id = $1 AND action = 'two_factor.disable'`,
      [owner.id],
    );
    expect(entry).toEqual({ actor_type: 'staff', details: { byOperator: true } });
    const again = await runCliIn(t.app, ['account:disable-2fa', '--email', owner.email]);
    expect(again.lines).toEqual([{ id: owner.id, email: owner.email, twoFactor: 'off', changed: false, sessionsEnded: false }]);
    const unknown = await runCliIn(t.app, ['account:disable-2fa', '--email', 'nobody@example.test']);
    expect(unknown.code).toBe(64);
    expect(unknown.stderr).toContain('No account with email');
  });

  it('a recovery code works once', async () => {
    const owner = await createAccount(t);
    const { recoveryCodes } = await enableFor(owner);
    const first = await login(owner);
    await request(t.http)
      .post('/api/auth/login/2fa')
      .send({ mfaToken: first.body.mfaToken, recoveryCode: recoveryCodes[3].toUpperCase() })
      .expect(200);
    const second = await login(owner);
    await request(t.http).post('/api/auth/login/2fa').send({ mfaToken: second.body.mfaToken, recoveryCode: recoveryCodes[3] }).expect(401);
    await request(t.http).post('/api/auth/login/2fa').send({ mfaToken: second.body.mfaToken, recoveryCode: recoveryCodes[4] }).expect(200);
  });

  it('five wrong codes end the mfaToken', async () => {
    const owner = await createAccount(t);
    const { secret } = await enableFor(owner);
    const { body } = await login(owner);
    const good = await codeAt(secret, 1);
    const wrong = good === '000000' ? '111111' : '000000';
    for (let i = 0; i < 5; i++) {
      const res = await request(t.http).post('/api/auth/login/2fa').send({ mfaToken: body.mfaToken, code: wrong }).expect(401);
      expect(res.body.code).toBe('invalid_code');
    }
    const ended = await request(t.http).post('/api/auth/login/2fa').send({ mfaToken: body.mfaToken, code: good }).expect(401);
    expect(ended.body.code).toBe('invalid_mfa_token');
  });

  it('disable needs the password and a code; ends other sessions; login is one step again', async () => {
    const owner = await createAccount(t);
    const { secret, recoveryCodes } = await enableFor(owner);
    const first = await login(owner);
    const other = await request(t.http)
      .post('/api/auth/login/2fa')
      .send({ mfaToken: first.body.mfaToken, recoveryCode: recoveryCodes[0] })
      .expect(200);
    const wrongPassword = await request(t.http)
      .post('/api/auth/2fa/disable')
      .set('Authorization', owner.bearer)
      .send({ password: 'not the password', code: await codeAt(secret, 1) })
      .expect(400);
    expect(wrongPassword.body.errors).toEqual([{ field: 'password', message: 'is incorrect' }]);
    await request(t.http)
      .post('/api/auth/2fa/disable')
      .set('Authorization', owner.bearer)
      .send({ password: owner.password, code: '000000' === (await codeAt(secret, 1)) ? '111111' : '000000' })
      .expect(400);
    await request(t.http)
      .post('/api/auth/2fa/disable')
      .set('Authorization', owner.bearer)
      .send({ password: owner.password, code: await codeAt(secret, 1) })
      .expect(204);
    await request(t.http).get('/api/auth/me').set('Authorization', `Bearer ${other.body.accessToken}`).expect(401);
    const plain = await login(owner);
    expect(plain.body.accessToken).toEqual(expect.any(String));
    await request(t.http)
      .post('/api/auth/2fa/disable')
      .set('Authorization', owner.bearer)
      .send({ password: owner.password, code: '123456' })
      .expect(409);
  });

  it('refuses bad input, wrong first codes, API keys and missing tokens', async () => {
    const owner = await createAccount(t);
    await request(t.http)
      .post('/api/auth/2fa/enable')
      .set('Authorization', owner.bearer)
      .send({ password: owner.password, code: '123456' })
      .expect(409);
    const setup = await request(t.http).post('/api/auth/2fa/setup').set('Authorization', owner.bearer).expect(200);
    const good = await codeAt(setup.body.secret);
    await request(t.http)
      .post('/api/auth/2fa/enable')
      .set('Authorization', owner.bearer)
      .send({ password: owner.password, code: good === '000000' ? '111111' : '000000' })
      .expect(400);
    await request(t.http)
      .post('/api/auth/2fa/enable')
      .set('Authorization', owner.bearer)
      .send({ password: owner.password, code: 'abc' })
      .expect(400);
    await request(t.http).post('/api/auth/2fa/setup').set('Authorization', owner.keyBearer).expect(403);
    await request(t.http).post('/api/auth/2fa/setup').expect(401);
    await request(t.http).post('/api/auth/login/2fa').send({ mfaToken: 'hmf_nope', code: '123456' }).expect(401);
    await request(t.http).post('/api/auth/login/2fa').send({ mfaToken: 'hmf_nope' }).expect(400);
    await request(t.http)
      .post('/api/auth/login/2fa')
      .send({ mfaToken: 'hmf_nope', code: '123456', recoveryCode: 'abcde-fghjk' })
      .expect(400);
  });

  it('rate limits second-factor attempts per account', async () => {
    const owner = await createAccount(t);
    const setup = await request(t.http).post('/api/auth/2fa/setup').set('Authorization', owner.bearer).expect(200);
    const wrong = (await codeAt(setup.body.secret)) === '000000' ? '111111' : '000000';
    for (let i = 0; i < MFA_LIMIT; i++) {
      await request(t.http)
        .post('/api/auth/2fa/enable')
        .set('Authorization', owner.bearer)
        .send({ password: owner.password, code: wrong })
        .expect(400);
    }
    const limited = await request(t.http)
      .post('/api/auth/2fa/enable')
      .set('Authorization', owner.bearer)
      .send({ password: owner.password, code: wrong })
      .expect(429);
    expect(limited.body.code).toBe('rate_limited');
    // Another account is not affected.
    const other = await createAccount(t);
    await request(t.http)
      .post('/api/auth/2fa/enable')
      .set('Authorization', other.bearer)
      .send({ password: other.password, code: wrong })
      .expect(409);
  });
});
