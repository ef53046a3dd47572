import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { createAccount } from './factories/accounts';
import { TestSmtpServer } from './support/smtp';
import { startTestApp, TestApp } from './support/test-app';

/**
 * With DASHBOARD_URL the mailed links open the customer dashboard, which takes the same ?token=
 * (issue 29). A file of its own: whichever app's worker renders a queued mail builds its link, so
 * this app must be the only one on the test database.
 */
describe('DASHBOARD_URL', () => {
  const smtp = new TestSmtpServer();
  let t: TestApp;
  const password = 'a passphrase for the dashboard';

  beforeAll(async () => {
    await smtp.start();
    t = await startTestApp({ SMTP_URL: smtp.url, DASHBOARD_URL: 'https://localhost:8443/dashboard/' });
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await smtp.stop();
  });

  /** The link of a mail to `path`, in the text part and the same in the HTML part's href. */
  const mailedLink = (body: string, path: string): string => {
    const link = new RegExp(`https?://[^\\s"<>]+${path}\\?token=[A-Za-z0-9_%-]+`).exec(body)?.[0];
    if (!link) throw new Error(`no ${path} link in mail: ${body}`);
    expect(body).toContain(`href="${link}"`);
    return link;
  };

  it('the reset link points at the dashboard; the API page takes the same token and links back to the dashboard', async () => {
    const owner = await createAccount(t);
    await request(t.http).post('/api/auth/password/forgot').send({ email: owner.email }).expect(202);
    const link = mailedLink((await smtp.waitForMail(owner.email, /Reset your password/)).body, '/reset-password');
    expect(link).toMatch(/^https:\/\/localhost:8443\/dashboard\/reset-password\?token=hpr_/);
    const token = new URL(link).searchParams.get('token')!;
    await request(t.http).get('/account/reset-password').query({ token }).expect(200);
    const done = await request(t.http)
      .post('/account/reset-password')
      .type('form')
      .send({ token, password, confirmPassword: password })
      .expect(200);
    expect(done.text).toContain('<a href="https://localhost:8443/dashboard">Sign in to the dashboard</a>');
    await request(t.http).post('/api/auth/login').send({ email: owner.email, password }).expect(200);
  });

  it('the verification link points at the dashboard page /verify-email', async () => {
    const email = `dashboard-${randomUUID()}@example.test`;
    await request(t.http).post('/api/auth/register').send({ email, password, name: 'Dash' }).expect(201);
    const link = mailedLink((await smtp.waitForMail(email, /Confirm your email address/)).body, '/verify-email');
    expect(link).toMatch(/^https:\/\/localhost:8443\/dashboard\/verify-email\?token=hev_/);
  });
});
