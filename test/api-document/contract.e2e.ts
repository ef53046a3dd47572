import { buildOpenApiDocument } from '../../apps/api/src/http/openapi';
import { contractViolations } from '../support/contract';
import { sharedTestApp, TestApp } from '../support/test-app';

/** The response check that runs after every e2e file must itself catch drift. */
describe('Contract check of recorded responses', () => {
  let t: TestApp;
  let doc: unknown;
  beforeAll(async () => {
    t = await sharedTestApp();
    doc = buildOpenApiDocument(t.app);
  });

  const me = {
    id: '8c5e7c8e-2a51-4f7b-9d2c-1d6c5f9b8a10',
    email: 'a@b.io',
    name: 'A',
    emailVerifiedAt: null,
    createdAt: '2026-01-01T00:00:00.000Z',
    currentAccountId: '8c5e7c8e-2a51-4f7b-9d2c-1d6c5f9b8a10',
    role: 'owner',
    memberId: '9d6f8d9f-3b62-4a8c-8e7d-2e7d6a0c9b21',
    accounts: [{ accountId: '8c5e7c8e-2a51-4f7b-9d2c-1d6c5f9b8a10', name: 'A', role: 'owner' }],
  };
  const recorded = (status: number, body: unknown, route = '/api/auth/me') => [
    { method: 'get', route, status, contentType: 'application/json', body },
  ];

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

  const storage = {
    id: '0b8f2d1e-6c2a-4c33-9a55-3f1f4c0b7e21',
    name: 'backups',
    type: 'object_storage',
    status: 'active',
    price: 5,
    billingCycle: 'monthly',
    nextDueDate: null,
    productId: '5a7e0c3b-9d1f-4e2a-8b6c-2f4d1e0a9c37',
    currency: 'EUR',
    createdAt: '2026-01-01T00:00:00.000Z',
    instance: null,
    objectStorage: null,
    volume: null,
  };
  const vps = {
    ...storage,
    type: 'vps',
    instance: {
      powerState: 'running',
      ipv4: '203.0.113.17',
      ipv6: null,
      region: 'eu-central',
      ssh: { host: '203.0.113.17', port: 22, hostKeys: [] },
      rescue: false,
      firewalls: [],
      volumes: [],
      addresses: [{ ip: '203.0.113.17', ptr: null }],
    },
  };
  const service = (body: unknown) => recorded(200, body, '/api/services/{id}');

  it('takes null or the referenced object for a nullable reference, and nothing else', () => {
    expect(contractViolations(doc, service(storage))).toEqual([]);
    expect(contractViolations(doc, service(vps))).toEqual([]);
    expect(contractViolations(doc, service({ ...storage, instance: 'none' }))[0]).toMatch(/instance/);
    expect(contractViolations(doc, service({ ...vps, instance: { powerState: 'running' } }))[0]).toMatch(/instance/);
  });

  const event = {
    id: '3c1d2e4f-5a6b-4c7d-8e9f-0a1b2c3d4e5f',
    action: 'instance.stop',
    entity: { type: 'service', id: storage.id },
    actor: {
      type: 'api_key',
      id: '4d2e3f5a-6b7c-4d8e-9f0a-1b2c3d4e5f6a',
      name: 'deploy bot',
      memberId: '9d6f8d9f-3b62-4a8c-8e7d-2e7d6a0c9b21',
      email: 'a@b.io',
      keyId: '4d2e3f5a-6b7c-4d8e-9f0a-1b2c3d4e5f6a',
    },
    ip: '203.0.113.7',
    userAgent: 'curl/8.0',
    requestId: 'b5c0b1f4-6c0e-4f0e-9d7b-2a6f3c1e8d90',
    status: 'succeeded',
    details: { actionId: '5e3f4a6b-7c8d-4e9f-8a1b-2c3d4e5f6a7b' },
    createdAt: '2026-01-01T00:00:00.000Z',
  };

  it('takes an activity entry with or without an entity, and a system actor without id or name', () => {
    const entry = (body: unknown) => recorded(200, body, '/api/events/{id}');
    expect(contractViolations(doc, entry(event))).toEqual([]);
    expect(
      contractViolations(
        doc,
        entry({
          ...event,
          entity: null,
          actor: { type: 'system', id: null, name: null, memberId: null, email: null, keyId: null },
          ip: null,
        }),
      ),
    ).toEqual([]);
    expect(contractViolations(doc, entry({ ...event, entity: 'none' }))[0]).toMatch(/entity/);
    expect(contractViolations(doc, entry({ ...event, actor: { type: 'robot', id: null, name: null } }))[0]).toMatch(/actor/);
  });

  it('rejects null for a reference written with OpenAPI 3.0 nullable beside allOf, as Prism does', () => {
    const legacy = JSON.parse(JSON.stringify(doc));
    legacy.openapi = '3.0.0';
    legacy.components.schemas.ServiceResponse.properties.instance = {
      nullable: true,
      allOf: [{ $ref: '#/components/schemas/InstanceSummaryResponse' }],
      type: 'object',
    };
    expect(contractViolations(legacy, service(vps))).toEqual([]);
    expect(contractViolations(legacy, service(storage))[0]).toMatch(/instance/);
  });

  it('rejects null where a 3.1 document still says nullable: 3.1 has no such keyword', () => {
    const stale = JSON.parse(JSON.stringify(doc));
    stale.components.schemas.ServiceResponse.properties.nextDueDate = { type: 'string', format: 'date-time', nullable: true };
    expect(contractViolations(stale, service({ ...storage, nextDueDate: '2026-02-01T00:00:00.000Z' }))).toEqual([]);
    expect(contractViolations(stale, service(storage))[0]).toMatch(/nextDueDate/);
  });
});
