import 'reflect-metadata';
import { DECORATORS } from '@nestjs/swagger';
import { declareServicePart, ServiceResponse } from './service.response';

class StorageSummary {}
class MachineSummary {}

const row = {
  id: 'a',
  product_id: 'p',
  name: 'web-01',
  type: 'vps' as const,
  status: 'active' as const,
  price: '9.9900',
  currency: 'EUR',
  billing_cycle: 'monthly' as const,
  next_due_date: null,
  created_at: '2026-11-28T00:00:00.000Z',
};

describe('service parts', () => {
  // Declared against SERVICE_TYPES order, as areas may load in any order.
  declareServicePart({ type: 'object_storage', key: 'objectStorage', response: StorageSummary, description: 'storage' });
  declareServicePart({ type: 'vps', key: 'instance', response: MachineSummary, description: 'machine' });

  it('keeps SERVICE_TYPES order in the schema, after the services row', () => {
    const properties = Reflect.getMetadata(DECORATORS.API_MODEL_PROPERTIES_ARRAY, ServiceResponse.prototype) as string[];
    expect(properties.slice(-3)).toEqual([':createdAt', ':instance', ':objectStorage']);
    expect(Reflect.getMetadata(DECORATORS.API_EXTRA_MODELS, ServiceResponse)).toEqual([MachineSummary, StorageSummary]);
  });

  it('shows a service its own part and null for the others', () => {
    const value = { region: 'eu-central' };
    const response = ServiceResponse.fromRow(row, { key: 'instance', value }) as unknown as Record<string, unknown>;
    expect(Object.keys(response).slice(-2)).toEqual(['instance', 'objectStorage']);
    expect(response).toMatchObject({ instance: value, objectStorage: null });
  });

  it('refuses a part declared twice', () => {
    expect(() => declareServicePart({ type: 'vps', key: 'instance', response: MachineSummary, description: 'again' })).toThrow(/twice/);
  });
});
