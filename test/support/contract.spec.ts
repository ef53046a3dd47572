import { problemResponse } from '../../libs/core/src/openapi/problem-responses';
import { contractViolations, RecordedResponse, routeOf } from './contract';

/** The check every e2e file runs on close: an answered problem code the operation does not list fails it. */
describe('contractViolations on problem codes', () => {
  const document = {
    openapi: '3.1.0',
    paths: {
      '/api/auth/login/2fa': {
        post: {
          responses: { '401': problemResponse(401, ['invalid_mfa_token', 'invalid_code']), '429': problemResponse(429, ['rate_limited']) },
        },
      },
      '/api/services/{id}': { get: { responses: { '404': problemResponse(404, ['not_found']) } } },
      '/api/services/summary': { get: { responses: {} } },
    },
    components: {
      schemas: {
        ProblemResponse: {
          type: 'object',
          properties: { status: { type: 'integer' }, code: { type: 'string' }, detail: { type: 'string' } },
          required: ['status', 'code', 'detail'],
        },
      },
    },
  };
  const problem = (status: number, code: string, route: string | null = '/api/auth/login/2fa', path?: string): RecordedResponse => ({
    method: route === '/api/services/{id}' || path?.startsWith('/api/services') ? 'get' : 'post',
    route,
    path,
    status,
    contentType: 'application/problem+json; charset=utf-8',
    body: { status, code, detail: 'x' },
  });

  it('accepts the codes an operation lists for the status', () => {
    expect(contractViolations(document, [problem(401, 'invalid_mfa_token'), problem(401, 'invalid_code')])).toEqual([]);
  });

  it('fails a code the operation does not list, naming the operation, the status and the codes it lists', () => {
    expect(contractViolations(document, [problem(401, 'unauthorized')])).toEqual([
      'POST /api/auth/login/2fa answered 401 unauthorized, which the document does not list for it (it lists invalid_mfa_token, invalid_code)',
    ]);
  });

  it('fails a listed code under another status, and a status that is not declared', () => {
    expect(contractViolations(document, [problem(429, 'invalid_code')])[0]).toMatch(/answered 429 invalid_code/);
    expect(contractViolations(document, [problem(400, 'invalid_input')])[0]).toMatch(/answered 400, which the document does not declare/);
  });

  it('checks a problem answered before routing against the operation its path falls under', () => {
    const early = problem(404, 'rate_limited', null, '/api/services/0b8f2d1e-6c2a-4c33-9a55-3f1f4c0b7e21');
    expect(contractViolations(document, [early])[0]).toMatch(/GET \/api\/services\/\{id\} answered 404 rate_limited/);
    expect(contractViolations(document, [problem(404, 'not_found', null, '/api/nothing/here')])).toEqual([]);
  });

  it('finds the most literal template for a path', () => {
    expect(routeOf(document, '/api/services/summary')).toBe('/api/services/summary');
    expect(routeOf(document, '/api/services/abc')).toBe('/api/services/{id}');
    expect(routeOf(document, '/api/services/abc/more')).toBeNull();
  });
});
