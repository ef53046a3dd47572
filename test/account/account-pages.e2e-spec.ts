import { createHash, randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { Page, Response as PageResponse } from 'playwright-core';
import request from 'supertest';
import { buildOpenApiDocument } from '../../apps/api/src/http/openapi';
import { createAccount, TestAccount } from '../factories/accounts';
import { browserTestsEnabled, HeadlessChromium, launchChromium, tcpProxy, TcpProxy } from '../support/browser';
import { freePort } from '../support/server-process';
import { ReceivedMail, TestSmtpServer } from '../support/smtp';
import { startTestApp, TestApp } from '../support/test-app';

/**
 * The pages the mailed links open when no dashboard is configured: reset the password,
 * confirm an email address. Server-rendered HTML under /account, no script, strict CSP.
 */
const NEW_PASSWORD = 'a passphrase chosen in the browser';
const CSP = /^default-src 'none'; style-src 'sha256-[A-Za-z0-9+/]+={0,2}'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'$/;

const smtp = new TestSmtpServer();
let t: TestApp;
let proxy: TcpProxy;
let origin: string;
let clients = 0;
/** Each test plays a client of its own (X-Forwarded-For): the reset bucket is per IP. */
const nextIp = () => `203.0.113.${++clients}`;

beforeAll(async () => {
  await smtp.start();
  // PUBLIC_URL is the address a reverse proxy in front of the app listens on, as a customer's browser sees it.
  const port = await freePort();
  origin = `http://localhost:${port}`;
  t = await startTestApp({
    PUBLIC_URL: origin,
    SMTP_URL: smtp.url,
    TRUST_PROXY: '127.0.0.1',
    RATE_LIMIT_PASSWORD_RESET_PER_HOUR: '2',
    RATE_LIMIT_PASSWORD_RESET_IP_PER_MINUTE: '10',
  });
  proxy = await tcpProxy(port, (t.http.address() as AddressInfo).port);
}, 60_000);

afterAll(async () => {
  await proxy?.close();
  await t?.close();
  await smtp.stop();
});

/** The link of a mail, as a reader clicks it: in the text part, and the same in the HTML part's href. */
function mailedLink(mail: ReceivedMail, path: string): string {
  const link = new RegExp(`https?://[^\\s"<>]+${path}\\?token=[A-Za-z0-9_%-]+`).exec(mail.body)?.[0];
  if (!link) throw new Error(`no ${path} link in mail: ${mail.body}`);
  expect(mail.body).toContain(`href="${link}"`);
  return link;
}

async function resetLink(email: string): Promise<string> {
  await request(t.http).post('/api/auth/password/forgot').set('X-Forwarded-For', nextIp()).send({ email }).expect(202);
  return mailedLink(await smtp.waitForMail(email, /Reset your password/), '/account/reset-password');
}

const tokenOf = (link: string) => new URL(link).searchParams.get('token')!;
const login = (email: string, password: string) => request(t.http).post('/api/auth/login').send({ email, password });

describe('Account pages over HTTP', () => {
  const postReset = (form: Record<string, string | string[]>, ip = nextIp()) =>
    request(t.http).post('/account/reset-password').set('X-Forwarded-For', ip).type('form').send(form);

  it('the reset form: no bearer needed, strict CSP that allows its one stylesheet, no cache, no referrer, no script', async () => {
    const owner = await createAccount(t);
    const link = await resetLink(owner.email);
    const res = await request(t.http)
      .get(new URL(link).pathname + new URL(link).search)
      .expect(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['content-security-policy']).toMatch(CSP);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['referrer-policy']).toBe('no-referrer');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['x-frame-options']).toBe('DENY');
    const style = /<style>([\s\S]*?)<\/style>/.exec(res.text)![1];
    expect(res.headers['content-security-policy']).toContain(`'sha256-${createHash('sha256').update(style).digest('base64')}'`);
    expect(res.text).not.toMatch(/<script|\son\w+=|javascript:/i);
    expect(res.text).toContain('<form method="post" action="reset-password" novalidate>');
    expect(res.text).toContain('<label for="new-password">New password</label>');
    expect(res.text).toContain(`value="${tokenOf(link)}"`);
    expect(res.text).toContain(owner.email);
  });

  it('showing the form does not spend the token; the post does, once', async () => {
    const owner = await createAccount(t);
    const token = tokenOf(await resetLink(owner.email));
    for (let i = 0; i < 3; i++) await request(t.http).get('/account/reset-password').query({ token }).expect(200);
    const [row] = await t.db.query(`SELECT used_at FROM account_tokens WHERE account_id = $1 AND purpose = 'reset_password'`, [owner.id]);
    expect(row.used_at).toBeNull();
    const done = await postReset({ token, password: NEW_PASSWORD, confirmPassword: NEW_PASSWORD }).expect(200);
    expect(done.text).toContain('Your password was changed');
    expect(done.text).toContain('1 API key was revoked');
    expect(done.headers['content-security-policy']).toMatch(CSP);
    await login(owner.email, NEW_PASSWORD).expect(200);
    const again = await postReset({ token, password: 'yet another passphrase', confirmPassword: 'yet another passphrase' }).expect(400);
    expect(again.text).toContain('role="alert"');
    expect(again.text).toContain('was already used');
    await request(t.http).get('/account/reset-password').query({ token }).expect(400);
    await login(owner.email, NEW_PASSWORD).expect(200);
  });

  it('a bad submission is a 400 with the errors announced and tied to their fields; the password is never echoed', async () => {
    const owner = await createAccount(t);
    const token = tokenOf(await resetLink(owner.email));
    const short = await postReset({ token, password: 'short1', confirmPassword: 'short1' }).expect(400);
    expect(short.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(short.text).toMatch(/<title>Error: Choose a new password/);
    expect(short.text).toContain('<div class="alert" role="alert">');
    expect(short.text).toContain('<li><a href="#new-password">The password must have at least 10 characters.</a></li>');
    expect(short.text).toMatch(
      /<input type="password" id="new-password" name="password" autocomplete="new-password" required aria-describedby="new-password-hint new-password-error" aria-invalid="true" autofocus>/,
    );
    expect(short.text).toContain('<p class="error" id="new-password-error">Error: The password must have at least 10 characters.</p>');
    expect(short.text).not.toContain('short1');

    const mismatch = await postReset({ token, password: NEW_PASSWORD, confirmPassword: `${NEW_PASSWORD}!` }).expect(400);
    expect(mismatch.text).toContain('<p class="error" id="confirm-password-error">Error: The two passwords do not match.</p>');
    expect(mismatch.text).toMatch(/id="confirm-password"[^>]*aria-describedby="confirm-password-error" aria-invalid="true" autofocus>/);
    expect(mismatch.text).not.toContain(NEW_PASSWORD);

    const empty = await postReset({ token }).expect(400);
    expect(empty.text).toContain('Enter a new password.');
    expect(empty.text).toContain('Enter the new password again.');
    await postReset({ token, password: 'x'.repeat(1025), confirmPassword: 'x'.repeat(1025) }).expect(400);

    // None of these spent the link.
    await postReset({ token, password: NEW_PASSWORD, confirmPassword: NEW_PASSWORD }).expect(200);
    await login(owner.email, NEW_PASSWORD).expect(200);
  });

  it('a missing, unknown, repeated or expired token is a 400 page that says how to get a new link, and changes nothing', async () => {
    const owner = await createAccount(t);
    const token = tokenOf(await resetLink(owner.email));
    const form = { password: NEW_PASSWORD, confirmPassword: NEW_PASSWORD };
    for (const res of [
      await request(t.http).get('/account/reset-password').expect(400),
      await request(t.http).get('/account/reset-password?token=%22%3E%3Cscript%3Ealert(1)%3C%2Fscript%3E').expect(400),
      await postReset(form).expect(400),
      await postReset({ ...form, token: 'hpr_unknown' }).expect(400),
      await postReset({ ...form, token: [token, token] }).expect(400),
    ]) {
      expect(res.text).toContain('This reset link does not work');
      expect(res.text).toContain('role="alert"');
      expect(res.text).toContain('/api/auth/password/forgot');
      expect(res.text).not.toContain('<script');
    }
    await t.db.query(`UPDATE account_tokens SET expires_at = now() - interval '1 second' WHERE account_id = $1`, [owner.id]);
    await request(t.http).get('/account/reset-password').query({ token }).expect(400);
    await postReset({ ...form, token }).expect(400);
    await login(owner.email, owner.password).expect(200);
  });

  it('the form is posted as a form: JSON is a 415 page, an oversized form a 413 page; the API keeps its own JSON-only rule', async () => {
    const owner = await createAccount(t);
    const token = tokenOf(await resetLink(owner.email));
    const json = await request(t.http)
      .post('/account/reset-password')
      .set('X-Forwarded-For', nextIp())
      .send({ token, password: NEW_PASSWORD, confirmPassword: NEW_PASSWORD })
      .expect(415);
    expect(json.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(json.text).toContain('application/x-www-form-urlencoded');
    const huge = await postReset({ token, password: 'x'.repeat(40_000), confirmPassword: 'x' }).expect(413);
    expect(huge.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(huge.headers['content-security-policy']).toMatch(CSP);
    expect(huge.text).toContain('The form could not be read');
    const api = await request(t.http).post('/api/auth/password/reset').type('form').send({ token, newPassword: NEW_PASSWORD }).expect(415);
    expect(api.body.code).toBe('unsupported_media_type');
    await login(owner.email, owner.password).expect(200);
  });

  it('posts spend the password-reset budget per IP, as the API route does: past it, a 429 page with Retry-After', async () => {
    const ip = nextIp();
    // RATE_LIMIT_PASSWORD_RESET_IP_PER_MINUTE=10: ten a client IP a minute.
    for (let i = 0; i < 10; i++) await postReset({ token: 'hpr_unknown' }, ip).expect(400);
    const limited = await postReset({ token: 'hpr_unknown' }, ip).expect(429);
    expect(limited.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect(limited.headers['content-security-policy']).toMatch(CSP);
    expect(limited.text).toContain('Too many attempts');
    expect(limited.text).toContain('role="alert"');
    await request(t.http)
      .post('/api/auth/password/reset')
      .set('X-Forwarded-For', ip)
      .send({ token: 'hpr_x', newPassword: NEW_PASSWORD })
      .expect(429);
  });

  it('confirm-email: opening the link confirms nothing; the posted form does, once', async () => {
    const owner = await createAccount(t, { verified: false });
    await request(t.http).post('/api/auth/email/resend').set('Authorization', owner.bearer).expect(204);
    const token = tokenOf(mailedLink(await smtp.waitForMail(owner.email, /Confirm your email address/), '/account/confirm-email'));
    const page = await request(t.http).get('/account/confirm-email').query({ token }).expect(200);
    expect(page.headers['content-security-policy']).toMatch(CSP);
    expect(page.headers['referrer-policy']).toBe('no-referrer');
    expect(page.text).toContain('<form method="post" action="confirm-email">');
    expect(page.text).toContain('<button type="submit">Confirm email address</button>');
    expect((await t.get('/api/auth/me', owner.bearer).expect(200)).body.emailVerifiedAt).toBeNull();
    const done = await request(t.http).post('/account/confirm-email').type('form').send({ token }).expect(200);
    expect(done.text).toContain('Your email address is confirmed');
    expect((await t.get('/api/auth/me', owner.bearer).expect(200)).body.emailVerifiedAt).toEqual(expect.any(String));
    const used = await request(t.http).post('/account/confirm-email').type('form').send({ token }).expect(400);
    expect(used.text).toContain('This confirmation link does not work');
    await request(t.http).get('/account/confirm-email').query({ token }).expect(400);
    await request(t.http).post('/account/confirm-email').type('form').send({}).expect(400);
  });

  it('the pages are not part of the API document', () => {
    const paths = Object.keys(buildOpenApiDocument(t.app).paths);
    expect(paths).toContain('/api/auth/password/reset');
    expect(paths.filter((path) => path.startsWith('/account'))).toEqual([]);
  });
});

(browserTestsEnabled() ? describe : describe.skip)('Account pages in Chromium, JavaScript off', () => {
  let browser: HeadlessChromium;
  const problems: string[] = [];

  beforeAll(async () => {
    browser = await launchChromium({ javaScriptEnabled: false });
  }, 60_000);
  afterAll(() => browser?.close());

  async function open(link: string, status: number): Promise<Page> {
    const page = await browser.context.newPage();
    page.on('console', (message) => {
      // A stylesheet or anything else refused by the page's own policy would be logged here.
      if (/Content Security Policy|Refused to/i.test(message.text())) problems.push(message.text());
    });
    const res = await page.goto(link);
    expect(res?.status()).toBe(status);
    return page;
  }

  /** Submits the focused form with Enter and waits for the page that answers it. */
  async function pressEnterAndWait(page: Page): Promise<PageResponse> {
    const [res] = await Promise.all([page.waitForResponse((r) => r.request().method() === 'POST'), page.keyboard.press('Enter')]);
    await page.waitForLoadState();
    return res;
  }

  it('follow the link from the mail, set a new password with the keyboard, sign in with it', async () => {
    const owner: TestAccount = await createAccount(t);
    const link = await resetLink(owner.email);
    expect(link.startsWith(`${origin}/account/reset-password?token=hpr_`)).toBe(true);
    const page = await open(link, 200);
    await page.getByRole('heading', { name: 'Choose a new password' }).waitFor();
    expect(await page.getByText(owner.email).count()).toBe(1);
    // The stylesheet applies (the CSP hash lets it): a field fills the 32rem column, a bare input is far narrower.
    expect((await page.getByLabel('New password', { exact: true }).boundingBox())!.width).toBeGreaterThan(450);

    await page.getByLabel('New password', { exact: true }).focus();
    await page.keyboard.type(NEW_PASSWORD);
    await page.keyboard.press('Tab');
    expect(await page.locator('#confirm-password:focus').count()).toBe(1);
    await page.keyboard.type(NEW_PASSWORD);
    const answer = await pressEnterAndWait(page);
    expect(answer.status()).toBe(200);
    await page.getByRole('heading', { name: 'Your password was changed' }).waitFor();
    const status = page.getByRole('status');
    expect(await status.innerText()).toContain(owner.email);
    const text = await page.locator('main').innerText();
    expect(text).toContain('Every session was signed out');
    expect(text).toContain('1 API key was revoked');
    expect(text).toContain('Every webhook endpoint was disabled');
    expect(page.url()).toBe(`${origin}/account/reset-password`);

    await login(owner.email, NEW_PASSWORD).expect(200);
    await login(owner.email, owner.password).expect(401);
    await t.get('/api/auth/me', owner.keyBearer).expect(401);
    await t.get('/api/auth/me', owner.bearer).expect(401);

    // The same link again: a clear error, no form.
    const used = await open(link, 400);
    const alert = used.getByRole('alert');
    expect(await alert.innerText()).toContain('was already used');
    expect(await used.getByLabel('New password', { exact: true }).count()).toBe(0);
    expect(await used.title()).toMatch(/^Error: This reset link does not work/);
    expect(problems).toEqual([]);
  });

  it('the address for password managers is in the form but not on screen: no empty box above the fields (issue 42)', async () => {
    const owner = await createAccount(t);
    const page = await open(await resetLink(owner.email), 200);
    const username = page.locator('input[autocomplete="username"]');
    expect(await username.inputValue()).toBe(owner.email);
    expect(await username.isVisible()).toBe(false);
    expect(await username.boundingBox()).toBeNull();
    const shown = await page
      .locator('input')
      .evaluateAll((inputs) => inputs.filter((i) => (i as unknown as { offsetParent: unknown }).offsetParent !== null).map((i) => i.id));
    expect(shown).toEqual(['new-password', 'confirm-password']);
    expect(problems).toEqual([]);
  });

  it('passwords that differ: an alert, the field marked invalid and described by the error; then it works', async () => {
    const owner = await createAccount(t);
    const page = await open(await resetLink(owner.email), 200);
    await page.getByLabel('New password', { exact: true }).fill(NEW_PASSWORD);
    await page.getByLabel('Confirm new password').fill('a different passphrase');
    const [answer] = await Promise.all([
      page.waitForResponse((r) => r.request().method() === 'POST'),
      page.getByRole('button', { name: 'Set new password' }).click(),
    ]);
    expect(answer.status()).toBe(400);
    await page.waitForLoadState();
    const alert = page.getByRole('alert');
    expect(await alert.innerText()).toContain('The two passwords do not match.');
    expect(await page.title()).toMatch(/^Error: /);
    const confirm = page.getByLabel('Confirm new password');
    expect(await confirm.getAttribute('aria-invalid')).toBe('true');
    const describedBy = (await confirm.getAttribute('aria-describedby'))!.split(' ');
    expect(await page.locator(`#${describedBy[0]}`).innerText()).toBe('Error: The two passwords do not match.');
    // autofocus puts the keyboard on the field to fix, without script.
    expect(await page.locator('#confirm-password:focus').count()).toBe(1);
    expect(await page.getByLabel('New password', { exact: true }).getAttribute('aria-invalid')).toBeNull();
    // The summary's link leads to the field.
    expect(await alert.getByRole('link', { name: 'The two passwords do not match.' }).getAttribute('href')).toBe('#confirm-password');

    await page.getByLabel('New password', { exact: true }).fill(NEW_PASSWORD);
    await page.getByLabel('Confirm new password').fill(NEW_PASSWORD);
    await page.getByLabel('Confirm new password').focus();
    expect((await pressEnterAndWait(page)).status()).toBe(200);
    await page.getByRole('heading', { name: 'Your password was changed' }).waitFor();
    await login(owner.email, NEW_PASSWORD).expect(200);
    expect(problems).toEqual([]);
  });

  it('confirm-email: the link shows a button; the address is confirmed once it is pressed', async () => {
    const email = `pages-${randomUUID()}@example.test`;
    const registered = await request(t.http)
      .post('/api/auth/register')
      .send({ email, password: NEW_PASSWORD, name: 'Page Tester' })
      .expect(201);
    const bearer = `Bearer ${registered.body.accessToken}`;
    const link = mailedLink(await smtp.waitForMail(email, /Confirm your email address/), '/account/confirm-email');
    expect(link.startsWith(`${origin}/account/confirm-email?token=hev_`)).toBe(true);
    const page = await open(link, 200);
    await page.getByRole('heading', { name: 'Confirm your email address' }).waitFor();
    expect((await t.get('/api/auth/me', bearer).expect(200)).body.emailVerifiedAt).toBeNull();
    const [answer] = await Promise.all([
      page.waitForResponse((r) => r.request().method() === 'POST'),
      page.getByRole('button', { name: 'Confirm email address' }).click(),
    ]);
    expect(answer.status()).toBe(200);
    await page.getByRole('heading', { name: 'Your email address is confirmed' }).waitFor();
    expect(await page.getByRole('status').innerText()).toContain(email);
    expect((await t.get('/api/auth/me', bearer).expect(200)).body.emailVerifiedAt).toEqual(expect.any(String));
    const used = await open(link, 400);
    expect(await used.getByRole('alert').innerText()).toContain('was already used');
    expect(problems).toEqual([]);
  });
});
