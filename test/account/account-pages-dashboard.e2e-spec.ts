import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { promisify } from 'node:util';
import request from 'supertest';
import { createAccount } from '../factories/accounts';
import { startTestApp, TestApp } from '../support/test-app';

const MAIL_LINK = join(__dirname, '../../scripts/mail-link.js');

/**
 * With DASHBOARD_URL the mailed links open the customer dashboard, which takes the same ?token=.
 * A file of its own: whichever app's worker renders a queued mail builds its link, so
 * this app must be the only one on the test database. Mail goes to the outbox (no SMTP_URL), read
 * with `node scripts/mail-link.js <email>` as the README tells a newcomer to.
 */
describe('DASHBOARD_URL, and the outbox link script', () => {
  let t: TestApp;
  const password = 'a passphrase for the dashboard';

  beforeAll(async () => {
    t = await startTestApp({ SMTP_URL: undefined, DASHBOARD_URL: 'https://localhost:8443/dashboard/' });
  }, 60_000);
  afterAll(() => t?.close());

  /** What the script prints for the newest mail with a link to this address, run once right after the request as in the README. */
  async function mailedLink(email: string, subject: RegExp): Promise<string> {
    const { stdout: printed } = await promisify(execFile)(process.execPath, [MAIL_LINK, email], {
      env: { ...process.env, DATA_DIR: t.config.dataDir },
    });
    expect(printed).toMatch(subject);
    expect(printed).toContain(`(to ${email}):\n`);
    return printed.trim().split('\n').pop()!;
  }

  it('the reset link points at the dashboard; the API page takes the same token and links back to the dashboard', async () => {
    const owner = await createAccount(t);
    await request(t.http).post('/api/auth/password/forgot').send({ email: owner.email }).expect(202);
    const link = await mailedLink(owner.email, /^Reset your password/);
    expect(link).toMatch(/^https:\/\/localhost:8443\/dashboard\/reset-password\?token=hpr_[\w-]+$/);
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
    expect(await mailedLink(email, /^Confirm your email address/)).toMatch(
      /^https:\/\/localhost:8443\/dashboard\/verify-email\?token=hev_[\w-]+$/,
    );
  });
});
