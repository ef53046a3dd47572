import { randomUUID } from 'node:crypto';
import { generate } from 'otplib';
import request from 'supertest';
import { createAccount } from '../factories/accounts';
import { ReceivedMail, TestSmtpServer, linkToken } from '../support/smtp';
import { startTestApp, TestApp } from '../support/test-app';
import { TEST_DATABASE_URL } from '../support/test-env';
import { waitFor } from '../support/wait-for';
import { WebhookReceiver } from '../support/webhook-receiver';

const PASSWORD = 'correct horse battery staple';
const newEmail = () => `mail-${randomUUID()}@example.test`;

describe('Account mail through a real SMTP server: verification, password reset, email change', () => {
  let t: TestApp;
  const smtp = new TestSmtpServer();
  const receiver = new WebhookReceiver();
  beforeAll(async () => {
    await smtp.start();
    await receiver.start();
    t = await startTestApp({
      SMTP_URL: smtp.url,
      MAIL_FROM: 'Hosting <no-reply@hosting.test>',
      RATE_LIMIT_PASSWORD_RESET_PER_HOUR: '4',
      RATE_LIMIT_PASSWORD_RESET_IP_PER_MINUTE: '30',
      WEBHOOKS_ALLOW_HTTP: 'true',
      WEBHOOKS_ALLOW_PRIVATE: 'true',
      // The reset suites below each play a client of their own (X-Forwarded-For): the reset bucket is per IP.
      TRUST_PROXY: '127.0.0.1',
    });
  });
  afterAll(async () => {
    await t.close();
    await smtp.stop();
    await receiver.stop();
  });

  const register = (email: string) =>
    request(t.http).post('/api/auth/register').send({ email, password: PASSWORD, name: 'Mail <Tester>' }).expect(201);

  it('registration mails a verification link on PUBLIC_URL (text and HTML); the token works once', async () => {
    const email = newEmail();
    const registered = await register(email);
    expect(registered.body.account.emailVerifiedAt).toBeNull();
    const mail = await smtp.waitForMail(email, /Confirm your email address/);
    expect(mail.body).toContain('From: Hosting <no-reply@hosting.test>');
    expect(mail.body).toContain('Content-Type: text/plain');
    expect(mail.body).toContain('Content-Type: text/html');
    expect(mail.body).toContain('Mail &lt;Tester&gt;');
    expect(mail.body).toContain(`${t.config.publicUrl}/account/confirm-email?token=`);
    const token = linkToken(mail, '/confirm-email');
    await request(t.http).post('/api/auth/email/verify').send({ token }).expect(204);
    const me = await request(t.http).get('/api/auth/me').set('Authorization', `Bearer ${registered.body.accessToken}`).expect(200);
    expect(me.body.emailVerifiedAt).toEqual(expect.any(String));
    const reused = await request(t.http).post('/api/auth/email/verify').send({ token }).expect(400);
    expect(reused.body.code).toBe('invalid_token');
    await request(t.http).post('/api/auth/email/resend').set('Authorization', `Bearer ${registered.body.accessToken}`).expect(409);
    const [stored] = await t.db.query('SELECT token_hash FROM account_tokens WHERE email = $1', [email]);
    expect(stored.token_hash).not.toBe(token);
  });

  it('resend mails a new link and the earlier one stops working', async () => {
    const email = newEmail();
    const registered = await register(email);
    const first = linkToken(await smtp.waitForMail(email, /Confirm your email/), '/confirm-email');
    await request(t.http).post('/api/auth/email/resend').set('Authorization', `Bearer ${registered.body.accessToken}`).expect(204);
    await smtp.waitForMail(email, /Confirm your email/).then(() => waitForCount(smtp, email, 2));
    const second = linkToken(smtp.mailsTo(email)[1], '/confirm-email');
    await request(t.http).post('/api/auth/email/verify').send({ token: first }).expect(400);
    await request(t.http).post('/api/auth/email/verify').send({ token: second }).expect(204);
  });

  it('password reset: 202, a link, a new password, every session ended, a notice; the token works once', async () => {
    const owner = await createAccount(t);
    const forgot = await request(t.http).post('/api/auth/password/forgot').send({ email: owner.email.toUpperCase() }).expect(202);
    const token = linkToken(await smtp.waitForMail(owner.email, /Reset your password/), '/reset-password');
    await request(t.http).post('/api/auth/password/reset').send({ token, newPassword: 'a brand new passphrase' }).expect(204);
    await request(t.http).get('/api/auth/me').set('Authorization', owner.bearer).expect(401);
    await request(t.http).post('/api/auth/refresh').send({ refreshToken: owner.refreshToken }).expect(401);
    await request(t.http).post('/api/auth/login').send({ email: owner.email, password: owner.password }).expect(401);
    await request(t.http).post('/api/auth/login').send({ email: owner.email, password: 'a brand new passphrase' }).expect(200);
    await smtp.waitForMail(owner.email, /Your password was reset/);
    const reused = await request(t.http)
      .post('/api/auth/password/reset')
      .send({ token, newPassword: 'yet another passphrase' })
      .expect(400);
    expect(reused.body.code).toBe('invalid_token');

    // An unknown address: the same status and body, and no mail.
    const unknown = newEmail();
    const same = await request(t.http).post('/api/auth/password/forgot').send({ email: unknown }).expect(202);
    expect(same.body).toEqual(forgot.body);
    const marker = await createAccount(t);
    await request(t.http).post('/api/auth/password/forgot').send({ email: marker.email }).expect(202);
    await smtp.waitForMail(marker.email, /Reset your password/);
    expect(smtp.mailsTo(unknown)).toEqual([]);
  });

  it('an expired reset token is refused', async () => {
    const owner = await createAccount(t);
    await request(t.http).post('/api/auth/password/forgot').send({ email: owner.email }).expect(202);
    const token = linkToken(await smtp.waitForMail(owner.email, /Reset your password/), '/reset-password');
    await t.db.query(`UPDATE account_tokens SET expires_at = now() - interval '1 second' WHERE account_id = $1`, [owner.id]);
    await request(t.http).post('/api/auth/password/reset').send({ token, newPassword: 'a brand new passphrase' }).expect(400);
    await request(t.http).post('/api/auth/login').send({ email: owner.email, password: owner.password }).expect(200);
  });

  it('forgot is rate limited per email', async () => {
    const owner = await createAccount(t);
    for (let i = 0; i < 4; i++) await request(t.http).post('/api/auth/password/forgot').send({ email: owner.email }).expect(202);
    await request(t.http).post('/api/auth/password/forgot').send({ email: owner.email }).expect(429);
  });

  // An office behind one NAT address is not locked out for an hour by its colleagues' resets.
  it('forgot from one shared address: many emails get through up to the per-IP budget of a minute; one email stays limited for the hour', async () => {
    const forgotFrom = (ip: string, email: string) =>
      request(t.http).post('/api/auth/password/forgot').set('X-Forwarded-For', ip).send({ email });
    const office = '203.0.113.77';
    for (let i = 0; i < 30; i++) await forgotFrom(office, newEmail()).expect(202);
    const spent = await forgotFrom(office, newEmail()).expect(429);
    expect(spent.body.code).toBe('rate_limited');
    expect(Number(spent.headers['retry-after'])).toBeGreaterThan(0);
    expect(Number(spent.headers['retry-after'])).toBeLessThanOrEqual(60);

    const owner = await createAccount(t);
    for (let i = 0; i < 4; i++) await forgotFrom('203.0.113.78', owner.email).expect(202);
    const limited = await forgotFrom('203.0.113.78', owner.email).expect(429);
    expect(limited.body.code).toBe('rate_limited');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(60);
    // The per-email limit holds from every address.
    expect(Number((await forgotFrom('203.0.113.79', owner.email).expect(429)).headers['retry-after'])).toBeGreaterThan(60);
  });

  it('changing the email needs the password, confirms the new address first and tells the old one', async () => {
    const owner = await createAccount(t);
    const target = newEmail();
    await request(t.http).patch('/api/auth/me').set('Authorization', owner.bearer).send({ email: target }).expect(400);
    await request(t.http)
      .patch('/api/auth/me')
      .set('Authorization', owner.bearer)
      .send({ email: target, currentPassword: 'wrong password' })
      .expect(400);
    const pending = await request(t.http)
      .patch('/api/auth/me')
      .set('Authorization', owner.bearer)
      .send({ email: target, currentPassword: owner.password, name: 'Renamed' })
      .expect(200);
    expect(pending.body).toMatchObject({ email: owner.email, name: 'Renamed' });
    await smtp.waitForMail(owner.email, /email is being changed/);
    const token = linkToken(await smtp.waitForMail(target, /Confirm your new email/), '/confirm-email');
    await request(t.http).post('/api/auth/email/verify').send({ token }).expect(204);
    const me = await request(t.http).get('/api/auth/me').set('Authorization', owner.bearer).expect(200);
    expect(me.body).toMatchObject({ email: target, emailVerifiedAt: expect.any(String) });
    await request(t.http).post('/api/auth/login').send({ email: target, password: owner.password }).expect(200);
    await request(t.http).patch('/api/auth/me').send({ name: 'x' }).expect(401);
    await request(t.http).patch('/api/auth/me').set('Authorization', owner.bearer).send({ name: null }).expect(400);
    await request(t.http).patch('/api/auth/me').set('Authorization', owner.bearer).send({ email: null }).expect(400);
  });

  let clientIp = '';
  let clients = 0;
  beforeEach(() => (clientIp = `198.51.100.${++clients}`));
  const forgot = async (email: string, nth = 1) => {
    await request(t.http).post('/api/auth/password/forgot').set('X-Forwarded-For', clientIp).send({ email }).expect(202);
    await waitForCount(smtp, email, nth, /Reset your password/);
    return linkToken(smtp.mailsTo(email).filter((m) => /Reset your password/.test(m.subject))[nth - 1], '/reset-password');
  };
  const requestEmailChange = (owner: { bearer: string; password: string }, email: string) =>
    request(t.http).patch('/api/auth/me').set('Authorization', owner.bearer).send({ email, currentPassword: owner.password }).expect(200);
  const confirmLink = async (to: string) => linkToken(await smtp.waitForMail(to, /Confirm your new email/), '/confirm-email');
  const refused = async (path: string, body: object) => {
    const res = await request(t.http).post(path).set('X-Forwarded-For', clientIp).send(body).expect(400);
    expect(res.body.code).toBe('invalid_token');
  };

  // Someone who once knew the password cannot take the account with a pending email change.
  it('a password change, and a password reset, cancel a pending email change: its link is refused after', async () => {
    const owner = await createAccount(t);
    const attacker = newEmail();
    await requestEmailChange(owner, attacker);
    const link = await confirmLink(attacker);
    await request(t.http)
      .post('/api/auth/password')
      .set('Authorization', owner.bearer)
      .send({ currentPassword: owner.password, newPassword: 'the owner reacted quickly' })
      .expect(204);
    await refused('/api/auth/email/verify', { token: link });
    expect((await request(t.http).get('/api/auth/me').set('Authorization', owner.bearer).expect(200)).body.email).toBe(owner.email);

    const again = newEmail();
    await requestEmailChange({ bearer: owner.bearer, password: 'the owner reacted quickly' }, again);
    const second = await confirmLink(again);
    await request(t.http)
      .post('/api/auth/password/reset')
      .set('X-Forwarded-For', clientIp)
      .send({ token: await forgot(owner.email), newPassword: 'reset by the owner' })
      .expect(204);
    await refused('/api/auth/email/verify', { token: second });
    await request(t.http).post('/api/auth/login').send({ email: owner.email, password: 'reset by the owner' }).expect(200);
    await request(t.http).post('/api/auth/login').send({ email: again, password: 'reset by the owner' }).expect(401);
  });

  // An old reset link cannot undo what the owner changed since, nor outlive a newer one.
  it('reset links issued before a password change, before a confirmed email change, or before a newer reset are refused', async () => {
    const owner = await createAccount(t);
    const beforeChange = await forgot(owner.email, 1);
    await request(t.http)
      .post('/api/auth/password')
      .set('Authorization', owner.bearer)
      .send({ currentPassword: owner.password, newPassword: 'changed by the owner' })
      .expect(204);
    await refused('/api/auth/password/reset', { token: beforeChange, newPassword: 'an attacker password' });

    const beforeMove = await forgot(owner.email, 2);
    const moved = newEmail();
    await requestEmailChange({ bearer: owner.bearer, password: 'changed by the owner' }, moved);
    await request(t.http)
      .post('/api/auth/email/verify')
      .send({ token: await confirmLink(moved) })
      .expect(204);
    await refused('/api/auth/password/reset', { token: beforeMove, newPassword: 'an attacker password' });

    const older = await forgot(moved, 1);
    const newer = await forgot(moved, 2);
    await refused('/api/auth/password/reset', { token: older, newPassword: 'an attacker password' });
    await request(t.http)
      .post('/api/auth/password/reset')
      .set('X-Forwarded-For', clientIp)
      .send({ token: newer, newPassword: 'the newest link works' })
      .expect(204);
    await request(t.http).post('/api/auth/login').send({ email: moved, password: 'the newest link works' }).expect(200);
  });

  // Pre-hijacking: whoever registered the address first keeps no key and no webhook.
  it('a reset through the mailed link revokes every API key, disables every webhook (nothing reaches it) and says so', async () => {
    const owner = await createAccount(t);
    const hook = await request(t.http)
      .post('/api/webhooks')
      .set('Authorization', owner.keyBearer)
      .send({ url: receiver.url, events: ['*'] })
      .expect(201);
    const second = await request(t.http).post('/api/auth/api-keys').set('Authorization', owner.bearer).send({ name: 'second' }).expect(201);
    await request(t.http)
      .post('/api/auth/password/reset')
      .set('X-Forwarded-For', clientIp)
      .send({ token: await forgot(owner.email), newPassword: 'the real owner is back' })
      .expect(204);
    for (const key of [owner.apiKey, second.body.key])
      await request(t.http).get('/api/auth/me').set('Authorization', `Bearer ${key}`).expect(401);
    const login = await request(t.http)
      .post('/api/auth/login')
      .send({ email: owner.email, password: 'the real owner is back' })
      .expect(200);
    const bearer = `Bearer ${login.body.accessToken}`;
    expect((await request(t.http).get('/api/auth/api-keys').set('Authorization', bearer).expect(200)).body.total).toBe(0);
    expect((await request(t.http).get(`/api/webhooks/${hook.body.id}`).set('Authorization', bearer).expect(200)).body.enabled).toBe(false);
    const notice = await smtp.waitForMail(owner.email, /Your password was reset/);
    expect(notice.body).toContain('2 API keys were revoked, and every webhook endpoint was disabled');
    // The reset and what it ended were recorded; none of it was queued for the endpoint.
    const recorded = await t.db.query(
      `SELECT action, details FROM activity_events WHERE account_id = $1 AND action IN ('auth.password_reset', 'api_key.revoke', 'webhook.disable') ORDER BY action`,
      [owner.id],
    );
    expect(recorded.map((r: { action: string; details: { reason?: string } }) => [r.action, r.details.reason ?? null])).toEqual([
      ['api_key.revoke', 'password_reset'],
      ['api_key.revoke', 'password_reset'],
      ['auth.password_reset', null],
      ['webhook.disable', 'password_reset'],
    ]);
    const queued = await t.db.query('SELECT event_type FROM webhook_deliveries WHERE endpoint_id = $1 ORDER BY event_type', [hook.body.id]);
    expect(queued.map((r: { event_type: string }) => r.event_type)).toEqual([
      'api_key.create',
      'auth.password_reset_request',
      'webhook.create',
    ]);
  });

  it("an account someone else registered is the owner's after a reset through the link: confirmed, and the stranger is out", async () => {
    const email = newEmail();
    const squatter = await register(email);
    const squatterBearer = `Bearer ${squatter.body.accessToken}`;
    const early = await request(t.http).post('/api/auth/api-keys').set('Authorization', squatterBearer).send({ name: 'kept' }).expect(403);
    expect(early.body.code).toBe('email_unverified');
    const hook = await request(t.http)
      .post('/api/webhooks')
      .set('Authorization', squatterBearer)
      .send({ url: receiver.url, events: ['*'] });
    expect(hook.status).toBe(403);
    await request(t.http)
      .post('/api/auth/password/reset')
      .set('X-Forwarded-For', clientIp)
      .send({ token: await forgot(email), newPassword: 'the owner of the address' })
      .expect(204);
    await request(t.http).get('/api/auth/me').set('Authorization', squatterBearer).expect(401);
    const login = await request(t.http).post('/api/auth/login').send({ email, password: 'the owner of the address' }).expect(200);
    expect(login.body.account.emailVerifiedAt).toEqual(expect.any(String));
    await request(t.http)
      .post('/api/auth/api-keys')
      .set('Authorization', `Bearer ${login.body.accessToken}`)
      .send({ name: 'mine' })
      .expect(201);
  });

  // PATCH /me does not tell whether an address has an account.
  it('an email change to a taken address answers as for a free one; the owner of the address is told, with no link', async () => {
    const owner = await createAccount(t);
    const holder = await createAccount(t);
    const free = newEmail();
    const toFree = await requestEmailChange(owner, free);
    const toTaken = await requestEmailChange(owner, holder.email);
    expect(toTaken.body).toEqual(toFree.body);
    expect(toTaken.body.email).toBe(owner.email);
    const told = await smtp.waitForMail(holder.email, /Someone tried to use your email address/);
    expect(told.body).not.toMatch(/token=/);
    expect(told.body).toContain('Nothing was changed');
    await waitForCount(smtp, owner.email, 2, /email is being changed/);
    // The request to the taken address replaced the pending one, as a request to a free one would.
    await refused('/api/auth/email/verify', { token: await confirmLink(free) });
    const tokens = await t.db.query(`SELECT email FROM account_tokens WHERE account_id = $1 AND purpose = 'change_email'`, [owner.id]);
    expect(tokens.map((r: { email: string }) => r.email)).toEqual([free]);
    expect((await request(t.http).get('/api/auth/me').set('Authorization', holder.bearer).expect(200)).body.email).toBe(holder.email);
  });

  // The name is the customer's text; a mail never turns it into a link.
  it('a name that looks like a URL is mailed as text no client links, in the text and the HTML part', async () => {
    const email = newEmail();
    await request(t.http)
      .post('/api/auth/register')
      .send({ email, password: PASSWORD, name: 'Ada - urgent, visit https://evil.example/unlock or www.evil.example' })
      .expect(201);
    const mail = await smtp.waitForMail(email, /Confirm your email address/);
    expect(mail.body).toContain('Hello Ada - urgent, visit https[:]//evil[.]example/unlock or www[.]evil[.]example,');
    expect(mail.body).not.toContain('evil.example');
    expect(mail.body).not.toContain('https://evil');
    expect(htmlLinks(mail)).toEqual([expect.stringMatching(/^http:\/\/127\.0\.0\.1:3000\/account\/confirm-email\?token=/)]);
  });

  it('turning two-factor sign-in on sends a notice', async () => {
    const owner = await createAccount(t);
    const setup = await request(t.http).post('/api/auth/2fa/setup').set('Authorization', owner.bearer).expect(200);
    await request(t.http)
      .post('/api/auth/2fa/enable')
      .set('Authorization', owner.bearer)
      .send({ password: owner.password, code: await generate({ secret: setup.body.secret }) })
      .expect(200);
    await smtp.waitForMail(owner.email, /Two-factor sign-in is on/);
  });

  it('a mail server that is down does not fail registration; the mail arrives once it is back', async () => {
    await smtp.stop();
    const email = newEmail();
    try {
      await register(email);
      await new Promise((resolve) => setTimeout(resolve, 1500));
      expect(smtp.mailsTo(email)).toEqual([]);
    } finally {
      await smtp.start();
    }
    await smtp.waitForMail(email, /Confirm your email address/, 30_000);
  });
});

// A second process on the same database takes over the queue only on PostgreSQL.
(TEST_DATABASE_URL ? describe : describe.skip)('Queued mail survives a restart (PostgreSQL)', () => {
  it('a mail queued while the server is down is sent by the next process once the server is back', async () => {
    const smtp = new TestSmtpServer();
    await smtp.start();
    await smtp.stop();
    const email = newEmail();
    const first = await startTestApp({ SMTP_URL: smtp.url });
    try {
      await request(first.http).post('/api/auth/register').send({ email, password: PASSWORD, name: 'Restart' }).expect(201);
    } finally {
      await first.close();
    }
    await smtp.start();
    const second = await startTestApp({ SMTP_URL: smtp.url });
    try {
      await smtp.waitForMail(email, /Confirm your email address/, 30_000);
    } finally {
      await second.close();
      await smtp.stop();
    }
  });
});

async function waitForCount(smtp: TestSmtpServer, to: string, count: number, subject = /./): Promise<void> {
  await waitFor(
    async () => smtp.mailsTo(to).filter((m) => subject.test(m.subject)).length,
    (n) => n >= count,
    15_000,
  );
}

/** The href of every link in the HTML part. */
function htmlLinks(mail: ReceivedMail): string[] {
  const html = mail.body.slice(mail.body.indexOf('Content-Type: text/html'));
  return [...html.matchAll(/<a\s[^>]*href="([^"]*)"/g)].map((m) => m[1].replace(/&amp;/g, '&'));
}
