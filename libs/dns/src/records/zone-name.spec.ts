import { RecordInvalid } from './dns-record';
import { isWithin, zoneName } from './zone-name';

async function refusal(input: string, reserved: string[] = []): Promise<RecordInvalid> {
  try {
    await zoneName(input, reserved);
  } catch (error) {
    if (error instanceof RecordInvalid) return error;
    throw error;
  }
  throw new Error(`${input} was accepted`);
}

describe('zoneName', () => {
  it.each([
    ['example.com', 'example.com'],
    ['  Example.COM.  ', 'example.com'],
    ['bücher.de', 'xn--bcher-kva.de'],
    ['XN--BCHER-KVA.de', 'xn--bcher-kva.de'],
    ['example.co.uk', 'example.co.uk'],
    ['my-shop.example', 'my-shop.example'],
    ['123.example.com', '123.example.com'],
  ])('%s -> %s', async (input, name) => {
    await expect(zoneName(input, [])).resolves.toBe(name);
  });

  it.each([
    ['a label with a space', 'exa mple.com', /not a domain name/],
    ['an underscore', '_dmarc.example.com', /not a domain name/],
    ['a leading hyphen', '-shop.example.com', /not a domain name/],
    ['a trailing hyphen', 'shop-.example.com', /not a domain name/],
    ['an empty label', 'example..com', /not a domain name/],
    ['a label of 64 characters', `${'a'.repeat(64)}.com`, /not a domain name/],
    ['a name of 254 characters', `${Array(4).fill('a'.repeat(62)).join('.')}.com`, /longer than 253/],
    ['invalid punycode', 'xn--zz.com', /not a domain name/],
    ['one label', 'localhost', /top-level domain/],
    ['a top-level domain', 'com.', /top-level domain/],
    ['a public suffix', 'co.uk', /public suffix/],
    ['a wildcard public suffix', 'anything.ck', /public suffix/],
    ['arpa', 'in-addr.arpa', /under arpa/],
    ['a name under arpa', '2.0.192.in-addr.arpa', /under arpa/],
  ])('refuses %s', async (_case, input, message) => {
    const error = await refusal(input);
    expect(error.field).toBe('name');
    expect(error.message).toMatch(message);
  });

  it('refuses a reserved name and the names under it, not its neighbours', async () => {
    expect((await refusal('provider.net', ['provider.net'])).message).toMatch(/reserved/);
    expect((await refusal('ns1.Provider.net', ['provider.net'])).field).toBe('name');
    await expect(zoneName('myprovider.net', ['provider.net'])).resolves.toBe('myprovider.net');
  });

  it('accepts a name under a public suffix exception', async () => {
    await expect(zoneName('www.ck', [])).resolves.toBe('www.ck');
  });
});

describe('isWithin', () => {
  it('is the zone itself or a name below it', () => {
    expect(isWithin('example.com', 'example.com')).toBe(true);
    expect(isWithin('www.example.com', 'example.com')).toBe(true);
    expect(isWithin('badexample.com', 'example.com')).toBe(false);
    expect(isWithin('com', 'example.com')).toBe(false);
  });
});
