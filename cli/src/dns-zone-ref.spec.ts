import { NotFoundError } from './errors';
import { pickZone } from './dns-zone-ref';

describe('pickZone', () => {
  const example = { id: '11111111-1111-4111-8111-111111111111', name: 'example.com' };
  const idn = { id: '22222222-2222-4222-8222-222222222222', name: 'xn--bcher-kva.example' };

  it('takes the zone with that name however it is written: any case, a trailing dot, IDN or punycode', () => {
    expect(pickZone([example, idn], 'example.com')).toBe(example.id);
    expect(pickZone([example, idn], 'Example.COM.')).toBe(example.id);
    expect(pickZone([example, idn], 'bücher.example')).toBe(idn.id);
    expect(pickZone([example, idn], 'xn--bcher-kva.example.')).toBe(idn.id);
  });

  it('says where names are listed when no zone has the name', () => {
    expect(() => pickZone([example], 'www.example.com')).toThrow(NotFoundError);
    expect(() => pickZone([], 'example.org')).toThrow(
      'no DNS zone named "example.org" in this account ("hostctl dns zones list" shows names and ids)',
    );
  });
});
