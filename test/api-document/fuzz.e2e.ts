import request from 'supertest';
import { createAccount, TestAccount } from '../factories/accounts';
import { sharedTestApp, TestApp } from '../support/test-app';

/**
 * Contract fuzzing: every operation in the OpenAPI document is called with hostile variations of
 * its parameters and body (wrong types, boundaries, huge and malformed strings, missing and extra
 * fields). Whatever the answer, it must never be a 5xx.
 */
const HOSTILE_VALUES: unknown[] = [
  null,
  true,
  -1,
  0,
  1e308,
  2 ** 63,
  1.5,
  '',
  ' ',
  'x'.repeat(70_000),
  'a\u0000b',
  '\u202egnp.exe',
  '\ud83d\ude00',
  '../../etc/passwd',
  "' OR 1=1 --",
  '<script>alert(1)</script>',
  [],
  [1, 'a', null],
  // Arrays where a list's objects belong passed nested validation and answered 500.
  [[]],
  [[[]]],
  {},
  { nested: { deeper: [1] } },
  // Wide and long: at the JSON guard's caps (100 keys, 100 items) and far past them.
  Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`k${i}`, i])),
  Object.fromEntries(Array.from({ length: 5_000 }, (_, i) => [`k${i}`, i])),
  Array.from({ length: 100 }, (_, i) => `item-${i}`),
  Array.from({ length: 50_000 }, () => 1),
];
const HOSTILE_PARAMS = ['', '-1', '0', '1e2', '10.5', '99999999999999999999999', 'abc', '%00', 'x'.repeat(5000), 'true', 'null'];
const HOSTILE_IDS = [
  'not-a-uuid',
  '00000000-0000-0000-0000-000000000000',
  'ffffffff-ffff-ffff-ffff-ffffffffffff',
  'x'.repeat(300),
  '..%2F..%2Fetc',
];

type Schema = {
  type?: string;
  properties?: Record<string, Schema>;
  required?: string[];
  $ref?: string;
  example?: unknown;
  enum?: unknown[];
  items?: Schema;
  format?: string;
};

describe('Contract fuzzing (no 5xx)', () => {
  let t: TestApp;
  let account: TestAccount;
  let doc: any;
  beforeAll(async () => {
    t = await sharedTestApp({ DOCS_ENABLED: 'true' });
    account = await createAccount(t);
    doc = (await request(t.http).get('/openapi.json')).body;
  });

  const resolve = (schema: Schema): Schema => (schema?.$ref ? resolve(doc.components.schemas[schema.$ref.split('/').pop()!]) : schema);

  function sample(schema: Schema): unknown {
    const s = resolve(schema ?? {});
    if (s.example !== undefined) return s.example;
    if (s.enum) return s.enum[0];
    if (s.type === 'object' || s.properties) {
      return Object.fromEntries(Object.entries(s.properties ?? {}).map(([k, v]) => [k, sample(v)]));
    }
    if (s.type === 'array') return [sample(s.items ?? {})];
    if (s.type === 'integer' || s.type === 'number') return 1;
    if (s.type === 'boolean') return true;
    if (s.format === 'uuid') return '6b0c8c3e-0000-4000-8000-000000000000';
    return 'text';
  }

  function bodies(schema: Schema): unknown[] {
    const base = sample(schema) as Record<string, unknown>;
    const out: unknown[] = [undefined, null, [], 'string', 42, {}, { ...base, unexpected: 'field' }];
    if (base && typeof base === 'object' && !Array.isArray(base)) {
      for (const key of Object.keys(base)) {
        const { [key]: _removed, ...without } = base;
        out.push(without);
        for (const value of HOSTILE_VALUES) out.push({ ...base, [key]: value });
      }
    }
    // A wide object and a long array as the whole body (a security review sent 80,000 keys).
    const wide = Object.fromEntries(Array.from({ length: 20_000 }, (_, i) => [`extra${i}`, i]));
    out.push(
      { ...(base && typeof base === 'object' ? base : {}), ...wide },
      Array.from({ length: 100_000 }, () => 1),
      Array.from({ length: 1_000 }, () => base),
    );
    return out;
  }

  it('never answers 5xx to any operation', async () => {
    const failures: string[] = [];
    let calls = 0;
    const operations = Object.entries<Record<string, any>>(doc.paths).flatMap(([path, item]) =>
      Object.entries<any>(item).map(([method, op]) => ({ path, method, op })),
    );
    expect(operations.length).toBeGreaterThan(5);
    for (const { path, method, op } of operations) {
      if (path.endsWith('/stream')) continue;
      const pathParams = (op.parameters ?? []).filter((p: any) => p.in === 'path').map((p: any) => p.name);
      const queryParams = (op.parameters ?? []).filter((p: any) => p.in === 'query').map((p: any) => p.name);
      const bodySchema = op.requestBody?.content?.['application/json']?.schema;
      const urls = [path.replace(/\{(\w+)\}/g, '6b0c8c3e-0000-4000-8000-000000000000')];
      for (const id of HOSTILE_IDS) for (const name of pathParams) urls.push(path.replace(`{${name}}`, id).replace(/\{(\w+)\}/g, 'x'));
      for (const name of queryParams) for (const value of HOSTILE_PARAMS) urls.push(`${urls[0]}?${name}=${encodeURIComponent(value)}`);
      for (const name of queryParams) urls.push(`${urls[0]}?${name}=1&${name}=2`);
      const payloads = bodySchema ? bodies(bodySchema) : [undefined];
      const cases = [
        ...urls.map((url) => ({ url, body: payloads[payloads.length > 1 ? 7 : 0] })),
        ...payloads.map((body) => ({ url: urls[0], body })),
      ];
      for (const { url, body } of cases) {
        let req = (request(t.http) as any)[method](url).set('Authorization', account.keyBearer).set('Idempotency-Key', `fuzz-${calls}`);
        if (body !== undefined) req = req.set('Content-Type', 'application/json').send(JSON.stringify(body));
        const res = await req;
        calls++;
        if (res.status >= 500)
          failures.push(
            `${method.toUpperCase()} ${url.slice(0, 120)} ${JSON.stringify(body)?.slice(0, 120)} -> ${res.status} ${res.text.slice(0, 200)}`,
          );
      }
    }
    expect(calls).toBeGreaterThan(100);
    expect(failures).toEqual([]);
  }, 300_000);
});
