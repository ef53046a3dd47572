import { buildOpenApiDocument } from '../apps/api/src/http/openapi';
import { contractViolations } from './support/contract';
import { startTestApp, TestApp } from './support/test-app';

/** The response check that runs after every e2e file must itself catch drift. */
describe('Contract check of recorded responses', () => {
  let t: TestApp;
  let doc: unknown;
  beforeAll(async () => {
    t = await startTestApp();
    doc = buildOpenApiDocument(t.app, t.config.publicUrl);
  });
  afterAll(() => t.close());

  const me = { id: '8c5e7c8e-2a51-4f7b-9d2c-1d6c5f9b8a10', email: 'a@b.io', name: 'A', createdAt: '2026-01-01T00:00:00.000Z' };
  const recorded = (status: number, body: unknown, route = '/api/auth/me') => [{ method: 'get', route, status, contentType: 'application/json', body }];

  it('accepts a documented response', () => {
    expect(contractViolations(doc, recorded(200, me))).toEqual([]);
  });

  it('flags a leaked field, a wrong type, a missing field, an undeclared status and an undocumented route', () => {
    expect(contractViolations(doc, recorded(200, { ...me, passwordHash: 'x' }))[0]).toMatch(/additional/);
    expect(contractViolations(doc, recorded(200, { ...me, name: 42 }))[0]).toMatch(/name/);
    const { email: _email, ...withoutEmail } = me;
    expect(contractViolations(doc, recorded(200, withoutEmail))[0]).toMatch(/email/);
    expect(contractViolations(doc, recorded(418, me))[0]).toMatch(/does not declare/);
    expect(contractViolations(doc, recorded(200, me, '/api/secret'))[0]).toMatch(/not in the document/);
  });
});
