import { DEFAULT_TTL, RecordInvalid } from './dns-record';
import type { DnsRecordData, RecordInput } from './dns-record';
import { checkRecord, checkRecordSet, rdataOf, txtFromRdata } from './record-rules';

const ZONE = 'example.com';

function record(input: Partial<RecordInput> & Pick<RecordInput, 'type' | 'value'>): DnsRecordData {
  return checkRecord(ZONE, { name: '@', ...input });
}

function refusal(check: () => unknown): RecordInvalid {
  try {
    check();
  } catch (error) {
    if (error instanceof RecordInvalid) return error;
    throw error;
  }
  throw new Error('accepted');
}

function refused(input: Partial<RecordInput>): RecordInvalid {
  return refusal(() => checkRecord(ZONE, { name: 'www', type: 'A', value: '192.0.2.1', ...input }));
}

describe('checkRecord', () => {
  it('answers the canonical record, with nulls where a field does not apply', () => {
    expect(checkRecord(ZONE, { name: 'WWW', type: 'a', value: ' 192.0.2.1 ' })).toEqual({
      name: 'www',
      type: 'A',
      ttl: DEFAULT_TTL,
      value: '192.0.2.1',
      priority: null,
      weight: null,
      port: null,
    });
  });

  describe('name', () => {
    it.each([
      ['@', '@'],
      ['', '@'],
      ['example.com.', '@'],
      ['EXAMPLE.com.', '@'],
      ['www', 'www'],
      ['www.example.com.', 'www'],
      ['*', '*'],
      ['*.dev', '*.dev'],
      ['_dmarc', '_dmarc'],
      ['_sip._tcp', '_sip._tcp'],
      ['s1._domainkey', 's1._domainkey'],
      ['bücher', 'xn--bcher-kva'],
      ['www.example.com', 'www.example.com'],
    ])('%s -> %s', (name, stored) => {
      expect(record({ name, type: 'TXT', value: 'x' }).name).toBe(stored);
    });

    it.each([
      ['an absolute name outside the zone', 'www.example.net.', /not inside the zone/],
      ['a neighbour of the zone', 'badexample.com.', /not inside the zone/],
      ['an empty label', 'a..b', /not a record name/],
      ['a space', 'my host', /not a record name/],
      ['a wildcard inside a name', 'dev.*', /not a record name/],
      ['a partial wildcard', '*dev', /not a record name/],
      ['a leading hyphen', '-www', /not a record name/],
      ['a label of 64 characters', 'a'.repeat(64), /not a record name/],
      ['a name longer than 253 characters', Array(4).fill('a'.repeat(60)).join('.'), /longer than 253/],
    ])('refuses %s', (_case, name, message) => {
      const error = refused({ name });
      expect(error.field).toBe('name');
      expect(error.message).toMatch(message);
    });
  });

  describe('type', () => {
    it.each(['PTR', 'SOA', 'DNSKEY', '', 'A AAAA'])('refuses %j', (type) => {
      const error = refused({ type });
      expect(error.field).toBe('type');
      expect(error.message).toMatch(/A, AAAA, CNAME, MX, TXT, SRV, CAA, NS/);
    });
  });

  describe('ttl', () => {
    it('takes the default when absent, the given one within bounds', () => {
      expect(record({ type: 'A', value: '192.0.2.1' }).ttl).toBe(3600);
      expect(record({ type: 'A', value: '192.0.2.1', ttl: 60 }).ttl).toBe(60);
      expect(record({ type: 'A', value: '192.0.2.1', ttl: 604_800 }).ttl).toBe(604_800);
    });

    it.each([59, 604_801, 300.5, -1, NaN])('refuses %s', (ttl) => {
      expect(refused({ ttl }).field).toBe('ttl');
    });
  });

  describe('A and AAAA', () => {
    it('keeps an IPv4 address, writes an IPv6 one as RFC 5952 does', () => {
      expect(record({ type: 'AAAA', value: '2001:DB8:0:0::0001' }).value).toBe('2001:db8::1');
      expect(record({ type: 'AAAA', value: '2001:db8:0:0:1:0:0:1' }).value).toBe('2001:db8::1:0:0:1');
    });

    it.each([
      ['A', '192.0.2.01'],
      ['A', '192.0.2'],
      ['A', '256.0.0.1'],
      ['A', '2001:db8::1'],
      ['A', 'www.example.com'],
      ['AAAA', '192.0.2.1'],
      ['AAAA', '2001:db8::g'],
      ['AAAA', 'fe80::1%eth0'],
    ])('refuses %s %s', (type, value) => {
      expect(refused({ type, value }).field).toBe('value');
    });
  });

  describe('targets (CNAME, NS, MX, SRV)', () => {
    it.each([
      ['CNAME', 'Target.Example.net', 'target.example.net.'],
      ['CNAME', 'target.example.net.', 'target.example.net.'],
      ['CNAME', '@', 'example.com.'],
      ['CNAME', 'münchen.de', 'xn--mnchen-3ya.de.'],
      ['CNAME', '_acme-challenge.other.example', '_acme-challenge.other.example.'],
      ['NS', 'ns1.example.net', 'ns1.example.net.'],
    ])('%s %s -> %s', (type, value, stored) => {
      expect(record({ name: 'sub', type, value }).value).toBe(stored);
    });

    it('takes MX and SRV targets, the null MX and the SRV "no service" target', () => {
      expect(record({ type: 'MX', value: 'mail.example.com', priority: 10 })).toMatchObject({
        value: 'mail.example.com.',
        priority: 10,
        weight: null,
      });
      expect(record({ type: 'MX', value: '.', priority: 0 }).value).toBe('.');
      const srv = record({ name: '_sip._tcp', type: 'SRV', value: 'sip.example.com', priority: 10, weight: 5, port: 5060 });
      expect(srv).toMatchObject({ value: 'sip.example.com.', priority: 10, weight: 5, port: 5060 });
      expect(record({ name: '_sip._tcp', type: 'SRV', value: '.', priority: 0, weight: 0, port: 0 }).value).toBe('.');
    });

    it.each([
      ['CNAME', '192.0.2.1', /not an IP address/],
      ['CNAME', '2001:db8::1', /not an IP address/],
      ['NS', '192.0.2.1.', /not an IP address/],
      ['CNAME', 'mail', /not a full host name/],
      ['CNAME', '.', /not a host name/],
      ['NS', '.', /not a host name/],
      ['CNAME', 'a..example.net', /not a host name/],
      ['CNAME', '*.example.net', /not a host name/],
      ['CNAME', 'bad host.example.net', /not a host name/],
    ])('refuses %s %s', (type, value, message) => {
      const error = refused({ type, value });
      expect(error.field).toBe('value');
      expect(error.message).toMatch(message);
    });

    it('refuses an MX target that is an address, a null MX with another priority', () => {
      expect(refused({ type: 'MX', value: '192.0.2.1', priority: 10 }).field).toBe('value');
      expect(refused({ type: 'MX', value: '.', priority: 10 }).field).toBe('priority');
    });
  });

  describe('priority, weight and port', () => {
    it.each([
      ['priority for an A', { priority: 10 }, 'priority', /only to MX and SRV/],
      ['weight for an A', { weight: 1 }, 'weight', /only to SRV/],
      ['port for an MX', { type: 'MX', value: 'mail.example.com', priority: 10, port: 25 }, 'port', /only to SRV/],
      ['no priority for an MX', { type: 'MX', value: 'mail.example.com' }, 'priority', /required for MX/],
      ['a null priority for an MX', { type: 'MX', value: 'mail.example.com', priority: null }, 'priority', /required/],
      ['a priority above 65535', { type: 'MX', value: 'mail.example.com', priority: 65_536 }, 'priority', /0 to 65535/],
      ['a negative priority', { type: 'MX', value: 'mail.example.com', priority: -1 }, 'priority', /0 to 65535/],
      ['a fractional priority', { type: 'MX', value: 'mail.example.com', priority: 1.5 }, 'priority', /0 to 65535/],
      ['no weight for an SRV', { type: 'SRV', value: 'sip.example.com', priority: 1, port: 5060 }, 'weight', /required for SRV/],
      ['no port for an SRV', { type: 'SRV', value: 'sip.example.com', priority: 1, weight: 1 }, 'port', /required for SRV/],
      ['a port above 65535', { type: 'SRV', value: 'sip.example.com', priority: 1, weight: 1, port: 70_000 }, 'port', /0 to 65535/],
    ])('refuses %s', (_case, input: Partial<RecordInput>, field, message) => {
      const error = refused(input);
      expect(error.field).toBe(field);
      expect(error.message).toMatch(message);
    });

    it('takes a null for a field that does not apply', () => {
      expect(record({ type: 'A', value: '192.0.2.1', priority: null, weight: null, port: null }).priority).toBeNull();
    });
  });

  describe('TXT', () => {
    it('keeps the text as written', () => {
      for (const value of [' v=spf1 -all ', 'v=DKIM1; k=rsa; p="x"', 'a\\b', 'héllo — 世界', 'x'.repeat(4096)]) {
        expect(record({ type: 'TXT', value }).value).toBe(value);
      }
    });

    it.each([
      ['empty text', '', /needs some text/],
      ['more than 4096 bytes', 'é'.repeat(2049), /4098 bytes/],
      ['a lone surrogate', 'a\ud800b', /not valid Unicode/],
    ])('refuses %s', (_case, value, message) => {
      const error = refused({ type: 'TXT', value });
      expect(error.field).toBe('value');
      expect(error.message).toMatch(message);
    });
  });

  describe('CAA', () => {
    it.each([
      ['0 issue "letsencrypt.org"', '0 issue "letsencrypt.org"'],
      ['0 issue letsencrypt.org', '0 issue "letsencrypt.org"'],
      ['0 ISSUE "LetsEncrypt.org."', '0 issue "letsencrypt.org"'],
      ['128 issuewild ";"', '128 issuewild ";"'],
      ['0 issue ""', '0 issue ";"'],
      ['0 issue ;', '0 issue ";"'],
      [
        '0 issue "letsencrypt.org;validationmethods=dns-01 ; accounturi=https://x.example/acct/1"',
        '0 issue "letsencrypt.org; validationmethods=dns-01; accounturi=https://x.example/acct/1"',
      ],
      ['0 iodef "mailto:security@example.com"', '0 iodef "mailto:security@example.com"'],
      ['0 iodef https://iodef.example.com/report', '0 iodef "https://iodef.example.com/report"'],
      ['0 issuemail "mail-ca.example"', '0 issuemail "mail-ca.example"'],
      ['0 issuevmc "vmc-ca.example"', '0 issuevmc "vmc-ca.example"'],
    ])('%s -> %s', (value, stored) => {
      expect(record({ type: 'CAA', value }).value).toBe(stored);
    });

    it.each([
      ['no value', '0 issue', /flags, tag and value/],
      ['flags above 255', '256 issue "letsencrypt.org"', /0 to 255/],
      ['an unknown tag', '0 contactemail "a@example.com"', /tag must be one of/],
      ['an iodef that is no URL', '0 iodef "security@example.com"', /mailto: or http/],
      ['an iodef of another scheme', '0 iodef "ftp://example.com/"', /mailto: or http/],
      ['an issuer that is no domain', '0 issue "lets encrypt"', /issuer's domain/],
      ['a parameter without a value', '0 issue "letsencrypt.org; strict"', /not a CAA parameter/],
      ['an unclosed quote', '0 issue "letsencrypt.org', /without quotes/],
      ['non-ASCII text', '0 issue "bücher.de; a=é"', /printable ASCII/],
    ])('refuses %s', (_case, value, message) => {
      const error = refused({ type: 'CAA', value });
      expect(error.field).toBe('value');
      expect(error.message).toMatch(message);
    });
  });
});

describe('checkRecordSet', () => {
  const a = (name: string, value = '192.0.2.1') => record({ name, type: 'A', value });
  const cname = (name: string, value = 'target.example.net') => record({ name, type: 'CNAME', value });

  function setRefusal(records: DnsRecordData[]): RecordInvalid {
    return refusal(() => checkRecordSet(ZONE, records));
  }

  it('accepts a zone that keeps the rules', () => {
    const mx = record({ type: 'MX', value: 'mail.example.com', priority: 10 });
    const ns = record({ name: 'sub', type: 'NS', value: 'ns1.example.net' });
    expect(() => checkRecordSet(ZONE, [a('@'), a('@', '192.0.2.2'), cname('www'), cname('*.dev'), mx, ns, a('sub')])).not.toThrow();
  });

  it.each([
    ['a CNAME at the apex', [cname('@')], 'name', /CNAME cannot be at the apex \(example.com\)/],
    ['an NS at the apex', [record({ type: 'NS', value: 'ns1.example.net' })], 'name', /apex's NS records are the provider's/],
    ['a CNAME beside an A', [a('www'), cname('www')], 'type', /www.example.com already has A records/],
    ['an A beside a CNAME', [cname('www'), a('www')], 'type', /www.example.com has a CNAME/],
    ['two CNAMEs', [cname('www'), cname('www', 'other.example.net')], 'type', /www.example.com has a CNAME/],
    ['the same record twice', [a('www'), a('www')], 'value', /A record of www.example.com already exists/],
    [
      'a null MX beside another MX',
      [record({ type: 'MX', value: '.', priority: 0 }), record({ type: 'MX', value: 'mail.example.com', priority: 10 })],
      'value',
      /null MX/,
    ],
  ])('refuses %s', (_case, records, field, message) => {
    const error = setRefusal(records);
    expect(error.field).toBe(field);
    expect(error.message).toMatch(message);
  });

  it('tells records apart by their whole data', () => {
    const srv = (port: number) => record({ name: '_sip._tcp', type: 'SRV', value: 'sip.example.com', priority: 1, weight: 1, port });
    expect(() => checkRecordSet(ZONE, [srv(5060), srv(5061)])).not.toThrow();
  });
});

describe('rdataOf', () => {
  it.each([
    [{ type: 'A', value: '192.0.2.1' }, '192.0.2.1'],
    [{ type: 'AAAA', value: '2001:db8::1' }, '2001:db8::1'],
    [{ name: 'www', type: 'CNAME', value: 'target.example.net' }, 'target.example.net.'],
    [{ type: 'MX', value: 'mail.example.com', priority: 10 }, '10 mail.example.com.'],
    [{ name: '_sip._tcp', type: 'SRV', value: 'sip.example.com', priority: 10, weight: 5, port: 5060 }, '10 5 5060 sip.example.com.'],
    [{ type: 'CAA', value: '0 issue letsencrypt.org' }, '0 issue "letsencrypt.org"'],
    [{ type: 'TXT', value: 'v=spf1 -all' }, '"v=spf1 -all"'],
    [{ type: 'TXT', value: 'say "hi" \\o/' }, '"say \\"hi\\" \\\\o/"'],
    [{ type: 'TXT', value: 'é\ttab' }, '"\\195\\169\\009tab"'],
  ])('%j -> %s', (input, rdata) => {
    expect(rdataOf(ZONE, record(input as RecordInput))).toBe(rdata);
  });

  it('splits a long TXT into strings of 255 bytes at most, never inside a character', () => {
    const text = `${'a'.repeat(254)}é${'b'.repeat(300)}`;
    const rdata = rdataOf(ZONE, record({ type: 'TXT', value: text }));
    const strings = rdata.match(/"(?:[^"\\]|\\.)*"/g)!;
    expect(strings.map((string) => txtFromRdata(string))).toEqual(['a'.repeat(254), `é${'b'.repeat(253)}`, 'b'.repeat(47)]);
    expect(rdata).toBe(strings.join(' '));
    expect(txtFromRdata(rdata)).toBe(text);
  });
});

describe('txtFromRdata', () => {
  it('joins the strings and undoes the escapes', () => {
    expect(txtFromRdata('"v=spf1 " "-all"')).toBe('v=spf1 -all');
    expect(txtFromRdata('"h\\195\\169llo" "\\"q\\" \\\\ \\;"')).toBe('héllo"q" \\ ;');
    expect(txtFromRdata('"héllo — 世界"')).toBe('héllo — 世界');
    expect(txtFromRdata('bare words')).toBe('barewords');
  });

  it.each([
    ['an unclosed string', '"abc'],
    ['nothing', '  '],
    ['an escape above 255', '"\\256"'],
    ['bytes that are not UTF-8', '"\\255"'],
  ])('refuses %s', (_case, rdata) => {
    expect(refusal(() => txtFromRdata(rdata)).field).toBe('value');
  });

  it('reads back what rdataOf writes', () => {
    for (const value of ['v=DKIM1; k=rsa; p="x"', 'back\\slash', 'héllo — 世界', '\u0000\u007f', '😀'.repeat(100)]) {
      expect(txtFromRdata(rdataOf(ZONE, record({ type: 'TXT', value })))).toBe(value);
    }
  });
});
