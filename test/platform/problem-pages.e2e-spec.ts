import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { escapeHtml, PROBLEM_CODES, ProblemCode } from '@app/core';
import { buildOpenApiDocument } from '../../apps/api/src/http/openapi';
import { createAccount } from '../factories/accounts';
import { startTestApp, TestApp } from '../support/test-app';

/**
 * A problem's `type` (`/problems/not-found`) is a page a developer can open (RFC 9457 means type URIs
 * to lead to documentation); they answered 404. Public HTML, served like the account pages.
 */
describe('Problem type pages', () => {
  let t: TestApp;
  beforeAll(async () => (t = await startTestApp()));
  afterAll(() => t.close());

  it('the type of an error answer opens, without a token, a page with the code, its status, meaning and action', async () => {
    const account = await createAccount(t);
    const problem = (await t.get(`/api/services/${randomUUID()}`, account.bearer).expect(404)).body;
    expect(problem.type).toBe('/problems/not-found');
    const page = await request(t.http).get(problem.type).expect(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.text).toContain('<title>Problem: not_found - Hosting account</title>');
    expect(page.text).toContain('<dd>404 Not Found</dd>');
    expect(page.text).toContain('<code>"code": "not_found"</code>');
    expect(page.text).toContain(escapeHtml(PROBLEM_CODES.not_found.meaning).replace(/`([^`]*)`/g, '<code>$1</code>'));
    expect(page.text).toContain(escapeHtml(PROBLEM_CODES.not_found.action).replace(/`([^`]*)`/g, '<code>$1</code>'));
  });

  it('has a page for every code, its backticks as <code>, escaped', async () => {
    for (const code of Object.keys(PROBLEM_CODES) as ProblemCode[]) {
      const page = await request(t.http).get(`/problems/${code.replace(/_/g, '-')}`);
      expect({ code, status: page.status }).toEqual({ code, status: 200 });
      expect(page.text).not.toContain('`');
      expect(page.text).toContain('<dt>What to do</dt>');
    }
    const invalidCode = (await request(t.http).get('/problems/invalid-code').expect(200)).text;
    expect(invalidCode).toContain('<dd>400 Bad Request, 401 Unauthorized</dd>');
  });

  it('lists every problem type at /problems', async () => {
    const index = (await request(t.http).get('/problems').expect(200)).text;
    for (const code of Object.keys(PROBLEM_CODES))
      expect(index).toContain(`<a href="/problems/${code.replace(/_/g, '-')}"><code>${code}</code></a>`);
  });

  it('answers an unknown or non-canonical name with a 404 page that escapes it', async () => {
    for (const slug of ['no-such-thing', 'not_found', 'NOT-FOUND', '%3Cscript%3E']) {
      const page = await request(t.http).get(`/problems/${slug}`).expect(404);
      expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(page.text).toContain('No such problem type');
      expect(page.text).not.toContain('<script>');
    }
  });

  it("carries the account pages' headers: their CSP, no cache, no referrer, no framing, no sniffing; no script", async () => {
    const page = await request(t.http).get('/problems/invalid-state').expect(200);
    const account = await request(t.http).get('/account/reset-password').query({ token: 'hpr_unknown' });
    for (const header of ['content-security-policy', 'cache-control', 'referrer-policy', 'x-content-type-options', 'x-frame-options']) {
      expect({ header, value: page.headers[header] }).toEqual({ header, value: account.headers[header] });
    }
    expect(page.headers['content-security-policy']).toMatch(/^default-src 'none'; style-src 'sha256-/);
    expect(page.text).not.toMatch(/<script|\son\w+=|javascript:/i);
  });

  it('is not part of the API document', () => {
    expect(Object.keys(buildOpenApiDocument(t.app).paths).filter((path) => path.startsWith('/problems'))).toEqual([]);
  });
});
