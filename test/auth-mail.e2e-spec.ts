import { randomUUID } from 'node:crypto';
import { generate } from 'otplib';
import request from 'supertest';
import { createAccount } from './factories/accounts';
import { TestSmtpServer, linkToken } from './support/smtp';
import { startTestApp, TestApp } from './support/test-app';
import { TEST_DATABASE_URL } from './support/test-env';
import { waitFor } from './support/wait-for';

const PASSWORD = 'correct horse battery staple';
const newEmail = () => `mail-${randomUUID()}@example.test`;

describe('Account mail through a real SMTP server: verification, password reset, email change', () => {
  let t: TestApp;
  const smtp = new TestSmtpServer();
  beforeAll(async () => {
    await smtp.start();
    t = await startTestApp({ SMTP_URL: smtp.url, MAIL_FROM: 'Hosting <no-reply@hosting.test>', RATE_LIMIT_PASSWORD_RESET_PER_HOUR: '4' });
  });
  afterAll(async () => {
    await t.close();
    await smtp.stop();
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
    expect(mail.body).toContain(`${t.config.publicUrl}/verify-email?token=`);
    const token = linkToken(mail, '/verify-email');
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
    const first = linkToken(await smtp.waitForMail(email, /Confirm your email/), '/verify-email');
    await request(t.http).post('/api/auth/email/resend').set('Authorization', `Bearer ${registered.body.accessToken}`).expect(204);
    await smtp.waitForMail(email, /Confirm your email/).then(() => waitForCount(smtp, email, 2));
    const second = linkToken(smtp.mailsTo(email)[1], '/verify-email');
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

  it('changing the email needs the password, confirms the new address first and tells the old one', async () => {
    const owner = await createAccount(t);
    const target = newEmail();
    await request(t.http).patch('/api/auth/me').set('Authorization', owner.bearer).send({ email: target }).expect(400);
    await request(t.http)
      .patch('/api/auth/me')
      .set('Authorization', owner.bearer)
      .send({ email: target, currentPassword: 'wrong password' })
      .expect(400);
    const taken = await createAccount(t);
    await request(t.http)
      .patch('/api/auth/me')
      .set('Authorization', owner.bearer)
      .send({ email: taken.email, currentPassword: owner.password })
      .expect(409);
    const pending = await request(t.http)
      .patch('/api/auth/me')
      .set('Authorization', owner.bearer)
      .send({ email: target, currentPassword: owner.password, name: 'Renamed' })
      .expect(200);
    expect(pending.body).toMatchObject({ email: owner.email, name: 'Renamed' });
    await smtp.waitForMail(owner.email, /email is being changed/);
    const token = linkToken(await smtp.waitForMail(target, /Confirm your new email/), '/verify-email');
    await request(t.http).post('/api/auth/email/verify').send({ token }).expect(204);
    const me = await request(t.http).get('/api/auth/me').set('Authorization', owner.bearer).expect(200);
    expect(me.body).toMatchObject({ email: target, emailVerifiedAt: expect.any(String) });
    await request(t.http).post('/api/auth/login').send({ email: target, password: owner.password }).expect(200);
    await request(t.http).patch('/api/auth/me').send({ name: 'x' }).expect(401);
    await request(t.http).patch('/api/auth/me').set('Authorization', owner.bearer).send({ name: null }).expect(400);
    await request(t.http).patch('/api/auth/me').set('Authorization', owner.bearer).send({ email: null }).expect(400);
  });

  it('turning two-factor sign-in on sends a notice', async () => {
    const owner = await createAccount(t);
    const setup = await request(t.http).post('/api/auth/2fa/setup').set('Authorization', owner.bearer).expect(200);
    await request(t.http)
      .post('/api/auth/2fa/enable')
      .set('Authorization', owner.bearer)
      .send({ code: await generate({ secret: setup.body.secret }) })
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

async function waitForCount(smtp: TestSmtpServer, to: string, count: number): Promise<void> {
  await waitFor(
    async () => smtp.mailsTo(to).length,
    (n) => n >= count,
    15_000,
  );
}
