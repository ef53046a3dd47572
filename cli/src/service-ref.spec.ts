import { NotFoundError, UsageError } from './errors';
import { pickByName } from './service-ref';

describe('pickByName', () => {
  const web = { id: '11111111-1111-4111-8111-111111111111', name: 'web-01', type: 'vps', status: 'active' } as const;
  const oldWeb = { id: '22222222-2222-4222-8222-222222222222', name: 'web-01', type: 'vps', status: 'terminated' } as const;
  const twin = { id: '33333333-3333-4333-8333-333333333333', name: 'web-01', type: 'vps', status: 'suspended' } as const;

  it('takes the one service with that name', () => {
    expect(pickByName([web], 'web-01', 'vps')).toBe(web.id);
  });

  it('takes the service not terminated when a terminated one kept the name, and a lone terminated one by its name', () => {
    expect(pickByName([oldWeb, web], 'web-01')).toBe(web.id);
    expect(pickByName([oldWeb], 'web-01')).toBe(oldWeb.id);
  });

  it('matches the name exactly', () => {
    expect(() => pickByName([web], 'WEB-01', 'vps')).toThrow(NotFoundError);
    expect(() => pickByName([web], 'web', 'vps')).toThrow(NotFoundError);
  });

  it('says what it looked for when no service has the name', () => {
    expect(() => pickByName([], 'db-1', 'vps')).toThrow(
      'no VPS named "db-1" in this account ("hostctl services list" shows names and ids)',
    );
    expect(() => pickByName([], 'db-1', 'object_storage')).toThrow('no object storage service named "db-1"');
    expect(() => pickByName([], 'db-1')).toThrow('no service named "db-1"');
  });

  it('refuses a name on two live services as a usage error that lists their ids', () => {
    expect(() => pickByName([web, twin, oldWeb], 'web-01')).toThrow(UsageError);
    expect(() => pickByName([web, twin], 'web-01')).toThrow(
      `2 services are named "web-01": ${web.id} (vps, active), ${twin.id} (vps, suspended); give the id instead`,
    );
  });
});
