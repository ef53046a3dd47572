import request from 'supertest';
import { RequestMethod } from '@nestjs/common';
import { DiscoveryService, MetadataScanner } from '@nestjs/core';
import { sharedTestApp, startTestApp, TestApp } from '../support/test-app';
import { documentedProblemCodes, PROBLEM_CODES, ProblemCode } from '@app/core';

const PATH_METADATA = 'path';
const METHOD_METADATA = 'method';

describe('OpenAPI document and Swagger UI', () => {
  let t: TestApp;
  let doc: Record<string, any>;
  beforeAll(async () => {
    t = await sharedTestApp({ DOCS_ENABLED: 'true' });
    doc = (await request(t.http).get('/openapi.json').expect(200)).body;
  });

  it('is OpenAPI 3 at version 0.1.0 with the bearer scheme, empty top-level security and its tags, every operation tagged with one of them', () => {
    expect(doc.openapi).toMatch(/^3\./);
    expect(doc.info.version).toBe('0.1.0');
    expect(doc.components.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(doc.security).toEqual([]);
    expect(doc.tags.map((tag: { name: string }) => tag.name)).toEqual([
      'Auth',
      'API Keys',
      'Members',
      'Products',
      'Services',
      'Images',
      'SSH Keys',
      'Firewalls',
      'DNS',
      'Notifications',
      'Support',
      'Events',
      'Webhooks',
    ]);
    const declared = new Set(doc.tags.map((tag: { name: string }) => tag.name));
    const operations = Object.values(doc.paths as Record<string, Record<string, { tags?: string[] }>>).flatMap((item) =>
      Object.values(item),
    );
    expect(operations.flatMap((op) => op.tags ?? []).filter((tag) => !declared.has(tag))).toEqual([]);
  });

  it('names no host: its one server is relative, so Swagger UI calls the origin it was loaded from (issue 18)', () => {
    expect(doc.servers).toEqual([{ url: '/', description: expect.any(String) }]);
    expect(JSON.stringify(doc)).not.toContain(t.config.publicUrl);
  });

  it('writes null the OpenAPI 3.1 way: no nullable keyword, nullable references as anyOf [$ref, null]', () => {
    expect(doc.openapi).toBe('3.1.0');
    const withNullable: string[] = [];
    const walk = (node: unknown, path: string): void => {
      if (!node || typeof node !== 'object') return;
      if ('nullable' in node) withNullable.push(path);
      for (const [key, child] of Object.entries(node)) walk(child, `${path}/${key}`);
    };
    walk(doc, '#');
    expect(withNullable).toEqual([]);
    const { schemas } = doc.components;
    const nullableRef = (name: string) => ({
      anyOf: [{ $ref: `#/components/schemas/${name}` }, { type: 'null' }],
      description: expect.any(String),
    });
    expect(schemas.ServiceResponse.properties.instance).toEqual(nullableRef('InstanceSummaryResponse'));
    expect(schemas.InstanceActionResponse.properties.error).toEqual(nullableRef('ActionErrorResponse'));
    expect(schemas.NotificationResponse.properties.entity).toEqual(nullableRef('NotificationEntityRef'));
    expect(schemas.NotificationResponse.required).toContain('entity');
  });

  it('documents every route the app registers, and nothing else', () => {
    const discovery = t.app.get(DiscoveryService);
    const scanner = new MetadataScanner();
    const registered = new Set<string>();
    for (const wrapper of discovery.getControllers()) {
      const type = wrapper.metatype as Function;
      const base: string = Reflect.getMetadata(PATH_METADATA, type) ?? '';
      if (Reflect.getMetadata('swagger/apiExcludeController', type)) continue;
      const proto = Object.getPrototypeOf(wrapper.instance);
      for (const name of scanner.getAllMethodNames(proto)) {
        const handler = proto[name];
        const method: RequestMethod | undefined = Reflect.getMetadata(METHOD_METADATA, handler);
        if (method === undefined || Reflect.getMetadata('swagger/apiExcludeEndpoint', handler)) continue;
        const sub: string = Reflect.getMetadata(PATH_METADATA, handler) ?? '';
        const path = `/${[base, sub].filter((p) => p && p !== '/').join('/')}`.replace(/\/+/g, '/').replace(/:(\w+)/g, '{$1}');
        registered.add(`${RequestMethod[method].toLowerCase()} ${path}`);
      }
    }
    const documented = new Set<string>();
    for (const [path, item] of Object.entries<Record<string, unknown>>(doc.paths)) {
      for (const method of Object.keys(item)) documented.add(`${method} ${path}`);
    }
    expect([...documented].sort()).toEqual([...registered].sort());
  });

  it('gives every operation a summary, a tag, problem responses and (unless public) the bearer scheme', () => {
    const open = new Set([
      'post /api/auth/register',
      'post /api/auth/login',
      'post /api/auth/refresh',
      'post /api/auth/login/2fa',
      'post /api/auth/password/forgot',
      'post /api/auth/password/reset',
      'post /api/auth/email/verify',
    ]);
    for (const [path, item] of Object.entries<Record<string, any>>(doc.paths)) {
      for (const [method, op] of Object.entries<any>(item)) {
        const id = `${method} ${path}`;
        expect({ id, summary: typeof op.summary }).toEqual({ id, summary: 'string' });
        expect(op.tags?.length).toBe(1);
        const errors = Object.keys(op.responses).filter((status) => Number(status) >= 400);
        expect({ id, errors: errors.length > 0 }).toEqual({ id, errors: true });
        if (!open.has(id)) {
          expect({ id, security: op.security }).toEqual({ id, security: [{ bearer: [] }] });
          expect({ id, has401: '401' in op.responses }).toEqual({ id, has401: true });
        }
      }
    }
  });

  it('lists on every error response the codes the operation answers with that status (issue 29)', () => {
    for (const [path, item] of Object.entries<Record<string, any>>(doc.paths)) {
      for (const [method, op] of Object.entries<any>(item)) {
        for (const [status, response] of Object.entries<any>(op.responses)) {
          if (Number(status) < 400) continue;
          const codes = documentedProblemCodes(response);
          const id = `${method} ${path} ${status}`;
          expect({ id, listed: codes.length > 0 }).toEqual({ id, listed: true });
          for (const code of codes) {
            expect({ id, code, status: PROBLEM_CODES[code as ProblemCode]?.statuses.includes(Number(status)) }).toEqual({
              id,
              code,
              status: true,
            });
            expect(response.description).toContain(`\`${code}\``);
          }
        }
      }
    }
    const secondStep = doc.paths['/api/auth/login/2fa'].post.responses;
    expect(documentedProblemCodes(secondStep['401'])).toEqual(['invalid_mfa_token', 'invalid_code']);
    expect(secondStep['401'].description).not.toMatch(/bearer/i);
    expect(documentedProblemCodes(doc.paths['/api/auth/2fa/setup'].post.responses['409'])).toEqual(['mfa_enabled']);
    expect(doc.paths['/api/auth/sessions/{id}'].delete.description).toMatch(/current session/);
  });

  it('gives every error response an example per code with its own status, not the 404 of the schema (issue 42)', () => {
    const examples = doc.components.examples;
    for (const [path, item] of Object.entries<Record<string, any>>(doc.paths)) {
      for (const [method, op] of Object.entries<any>(item)) {
        for (const [status, response] of Object.entries<any>(op.responses)) {
          if (Number(status) < 400) continue;
          const id = `${method} ${path} ${status}`;
          const refs = response.content['application/problem+json'].examples ?? {};
          expect({ id, codes: Object.keys(refs) }).toEqual({ id, codes: documentedProblemCodes(response) });
          for (const [code, ref] of Object.entries<{ $ref: string }>(refs)) {
            const value = examples[ref.$ref.replace('#/components/examples/', '')]?.value;
            expect({ id, code, value }).toEqual({
              id,
              code,
              value: expect.objectContaining({ status: Number(status), code, type: `/problems/${code.replace(/_/g, '-')}` }),
            });
          }
        }
      }
    }
    expect(examples['problem-429-rate_limited'].value).toMatchObject({
      title: 'Too Many Requests',
      detail: expect.stringMatching(/^Too many requests/),
    });
  });

  it('serves Swagger UI at /docs', async () => {
    const res = await request(t.http).get('/docs/');
    expect(res.status).toBe(200);
    expect(res.text).toContain('swagger-ui');
  });

  it('can be switched off with DOCS_ENABLED=false', async () => {
    const off = await startTestApp({ DOCS_ENABLED: 'false' });
    try {
      await request(off.http).get('/openapi.json').expect(404);
    } finally {
      await off.close();
    }
  });
});
