import { defaultPtr, ptrName } from './ptr-name';

describe('ptrName', () => {
  it('takes host names, in punycode and lower case, without the trailing dot', () => {
    expect(ptrName('Mail.Example.COM.')).toBe('mail.example.com');
    expect(ptrName('mail.bücher.example')).toBe('mail.xn--bcher-kva.example');
  });

  it.each(['', 'localhost', '203.0.113.5', '-bad.example.com', 'under_score.example.com', `${'a'.repeat(64)}.example.com`, 'a..b'])(
    'refuses %j naming the field',
    (input) => {
      expect(() => ptrName(input)).toThrow(expect.objectContaining({ field: 'ptr' }));
    },
  );

  it('makes the default from the hostname and DNS_DEFAULT_PTR_DOMAIN, or none', () => {
    expect(defaultPtr('web-01', 'vps.example.net')).toBe('web-01.vps.example.net');
    expect(defaultPtr('web-01', undefined)).toBeNull();
  });
});
