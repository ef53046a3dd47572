import type { DnsRecordData, RecordInput } from '../records/dns-record';
import { checkRecord } from '../records/record-rules';
import { ZoneFileInvalid, parseZoneFile } from './zone-file-parser';
import { formatZoneFile } from './zone-file-writer';

const ZONE = 'example.com';
const NAMESERVERS = ['ns1.provider.net', 'ns2.provider.net.'];
const SOA = {
  primary: 'ns1.provider.net',
  hostmaster: 'hostmaster@provider.net',
  serial: 2026112801,
  refresh: 7200,
  retry: 900,
  expire: 1_209_600,
  minimum: 300,
};

const record = (input: Partial<RecordInput> & Pick<RecordInput, 'type' | 'value'>): DnsRecordData =>
  checkRecord(ZONE, { name: '@', ...input });

const RECORDS: DnsRecordData[] = [
  record({ type: 'A', value: '192.0.2.1' }),
  record({ name: 'www', type: 'A', value: '192.0.2.2', ttl: 300 }),
  record({ name: 'www', type: 'AAAA', value: '2001:db8::2' }),
  record({ name: 'blog', type: 'CNAME', value: 'hosting.example.net' }),
  record({ type: 'MX', value: 'mail.example.com', priority: 10 }),
  record({ type: 'MX', value: 'backup-mx.example.net', priority: 20 }),
  record({ type: 'TXT', value: 'v=spf1 mx -all' }),
  record({ name: 's1._domainkey', type: 'TXT', value: 'v=DKIM1; k=rsa; p="x"' }),
  record({ name: 'odd', type: 'TXT', value: 'back\\slash; "quoted" ( ) $ORIGIN @' }),
  record({ name: 'unicode', type: 'TXT', value: 'héllo — 世界' }),
  record({ name: 'long', type: 'TXT', value: `${'k'.repeat(250)}ééé${'x'.repeat(400)}` }),
  record({ name: '_sip._tcp', type: 'SRV', value: 'sip.example.com', priority: 10, weight: 5, port: 5060 }),
  record({ type: 'CAA', value: '0 issue "letsencrypt.org"' }),
  record({ type: 'CAA', value: '0 iodef "mailto:security@example.com"' }),
  record({ name: 'sub', type: 'NS', value: 'ns1.example.net' }),
  record({ name: 'sub', type: 'NS', value: 'ns2.example.net' }),
  record({ name: '*.dev', type: 'A', value: '192.0.2.3' }),
];

const sorted = (records: DnsRecordData[]) => [...records].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));

function parseErrors(text: string): ZoneFileInvalid['errors'] {
  try {
    parseZoneFile(ZONE, text, NAMESERVERS);
  } catch (error) {
    if (error instanceof ZoneFileInvalid) return error.errors;
    throw error;
  }
  throw new Error('the file was accepted');
}

describe('formatZoneFile', () => {
  const text = formatZoneFile(ZONE, SOA, NAMESERVERS, RECORDS);
  const lines = text.trimEnd().split('\n');

  it('starts with $ORIGIN, $TTL, the SOA and the provider NS', () => {
    expect(lines[0]).toBe('$ORIGIN example.com.');
    expect(lines[1]).toBe('$TTL 3600');
    expect(lines[2].split(/\s+/)).toEqual([
      '@',
      '3600',
      'IN',
      'SOA',
      'ns1.provider.net.',
      'hostmaster.provider.net.',
      '2026112801',
      '7200',
      '900',
      '1209600',
      '300',
    ]);
    expect(lines.slice(3, 5).map((line) => line.split(/\s+/))).toEqual([
      ['@', '3600', 'IN', 'NS', 'ns1.provider.net.'],
      ['@', '3600', 'IN', 'NS', 'ns2.provider.net.'],
    ]);
  });

  it('writes the records apex first, then by name and type, in presentation form', () => {
    const owners = lines.slice(5).map((line) => line.split(/\s+/)[0]);
    expect(owners).toEqual([
      '@',
      '@',
      '@',
      '@',
      '@',
      '@',
      '*.dev',
      '_sip._tcp',
      'blog',
      'long',
      'odd',
      's1._domainkey',
      'sub',
      'sub',
      'unicode',
      'www',
      'www',
    ]);
    expect(lines).toContain('@              3600  IN  MX     10 mail.example.com.');
    expect(lines).toContain('_sip._tcp      3600  IN  SRV    10 5 5060 sip.example.com.');
    expect(lines).toContain('s1._domainkey  3600  IN  TXT    "v=DKIM1; k=rsa; p=\\"x\\""');
    expect(lines).toContain('unicode        3600  IN  TXT    "h\\195\\169llo \\226\\128\\148 \\228\\184\\150\\231\\149\\140"');
  });

  it('writes a mailbox given as an address with its dots escaped', () => {
    expect(formatZoneFile(ZONE, { ...SOA, hostmaster: 'dns.admin@provider.net' }, NAMESERVERS, [])).toContain(
      ' dns\\.admin.provider.net. ',
    );
  });
});

describe('parseZoneFile', () => {
  it('reads back what formatZoneFile writes', () => {
    const text = formatZoneFile(ZONE, SOA, NAMESERVERS, RECORDS);
    expect(sorted(parseZoneFile(ZONE, text, NAMESERVERS).records)).toEqual(sorted(RECORDS));
  });

  it('reads a zone file as people write them', () => {
    const text = [
      '; example.com, exported',
      '$TTL 1h',
      '@ IN SOA ns1.provider.net. hostmaster.provider.net. (',
      '      2026010101 ; serial',
      '      7200 900 1209600 300 )',
      '        IN NS  ns1.provider.net.',
      '        IN NS  NS2.Provider.NET.',
      '@          A     192.0.2.1 ; the web server',
      '           AAAA  2001:DB8:0::1',
      'www  300 IN CNAME @',
      'mail IN 600 A 192.0.2.25',
      '@ MX 10 mail',
      '@ MX 20 mx.example.net.',
      '_dmarc TXT "v=DMARC1; p=none" ; a comment after a string holding ;',
      'split TXT ( "part one, "',
      '            "part two" )',
      'bare TXT hello',
      '$ORIGIN dev.example.com.',
      '* A 192.0.2.9',
      '@ A 192.0.2.10',
      '$ORIGIN example.com.',
      'Bücher.Example.COM. A 192.0.2.11',
      '_sip._tcp SRV 10 5 5060 sip',
      '@ CAA 0 issue letsencrypt.org',
      'sub NS ns1.sub',
      'ns1.sub A 192.0.2.53',
      '',
    ].join('\r\n');
    const records = parseZoneFile(ZONE, text, NAMESERVERS).records;
    const shown = records.map(({ name, type, ttl, value, priority }) =>
      [name, type, ttl, priority === null ? value : `${priority} ${value}`].join(' '),
    );
    expect(shown).toEqual([
      '@ A 3600 192.0.2.1',
      '@ AAAA 3600 2001:db8::1',
      'www CNAME 300 example.com.',
      'mail A 600 192.0.2.25',
      '@ MX 3600 10 mail.example.com.',
      '@ MX 3600 20 mx.example.net.',
      '_dmarc TXT 3600 v=DMARC1; p=none',
      'split TXT 3600 part one, part two',
      'bare TXT 3600 hello',
      '*.dev A 3600 192.0.2.9',
      'dev A 3600 192.0.2.10',
      'xn--bcher-kva A 3600 192.0.2.11',
      '_sip._tcp SRV 3600 10 sip.example.com.',
      '@ CAA 3600 0 issue "letsencrypt.org"',
      'sub NS 3600 ns1.sub.example.com.',
      'ns1.sub A 3600 192.0.2.53',
    ]);
  });

  it('takes the lowest TTL of a name and type, and keeps a record written twice once', () => {
    const records = parseZoneFile(
      ZONE,
      'www 600 A 192.0.2.1\nwww 300 A 192.0.2.2\nwww 900 A 192.0.2.1\nwww 900 AAAA 2001:db8::1\n',
      NAMESERVERS,
    ).records;
    expect(records.map(({ type, ttl, value }) => `${type} ${ttl} ${value}`)).toEqual([
      'A 300 192.0.2.1',
      'A 300 192.0.2.2',
      'AAAA 900 2001:db8::1',
    ]);
  });

  it('takes an omitted TTL from the last one written when there is no $TTL', () => {
    const records = parseZoneFile(ZONE, 'a 600 A 192.0.2.1\nb A 192.0.2.2\n', NAMESERVERS).records;
    expect(records.map((r) => r.ttl)).toEqual([600, 600]);
  });

  it('refuses every faulty line, naming it', () => {
    const text = [
      '$ORIGIN example.com.', // 1
      'www A 192.0.2.300', // 2
      'ptr PTR host.example.com.', // 3
      'chaos CH TXT "x"', // 4
      'ok A 192.0.2.1', // 5
      '@ NS ns.other-provider.net.', // 6
      'mx MX ten mail.example.com.', // 7
      'far 30 A 192.0.2.1', // 8
      'outside.example.net. A 192.0.2.1', // 9
      'x A 192.0.2.1 192.0.2.2', // 10
      'q TXT "unclosed', // 11
      '$INCLUDE other.zone', // 12
      '$ORIGIN example.net.', // 13
      'key DNSKEY 256 3 13 abc', // 14
      'www2 CNAME target.example.net.', // 15
      'www2 A 192.0.2.4', // 16
      '@ CNAME target.example.net.', // 17
      'p ( A', // 18
    ].join('\n');
    expect(parseErrors(text)).toEqual([
      { field: 'line 2', message: 'value: "192.0.2.300" is not an IPv4 address (such as 192.0.2.1)' },
      { field: 'line 3', message: expect.stringMatching(/^type PTR is not supported/) },
      { field: 'line 4', message: 'class CH is not supported: records are of class IN' },
      { field: 'line 6', message: expect.stringMatching(/^name: the apex's NS records are the provider's/) },
      { field: 'line 7', message: expect.stringMatching(/^priority: /) },
      { field: 'line 8', message: expect.stringMatching(/^ttl: /) },
      { field: 'line 9', message: expect.stringMatching(/^name: .* not inside the zone example.com/) },
      { field: 'line 10', message: 'A takes 1 value (got 2)' },
      { field: 'line 11', message: 'a quoted string is not closed' },
      { field: 'line 12', message: '$INCLUDE is not supported' },
      { field: 'line 13', message: expect.stringMatching(/^\$ORIGIN example.net. is not example.com/) },
      { field: 'line 14', message: expect.stringMatching(/^type DNSKEY is not supported/) },
      { field: 'line 16', message: expect.stringMatching(/^type: www2.example.com has a CNAME/) },
      { field: 'line 17', message: expect.stringMatching(/^name: a CNAME cannot be at the apex/) },
      { field: 'line 18', message: 'a parenthesis is not closed' },
    ]);
  });

  it('refuses an SOA below the apex and a line without an owner', () => {
    expect(parseErrors('  A 192.0.2.1\nwww SOA a. b. 1 2 3 4 5\n')).toEqual([
      { field: 'line 1', message: expect.stringMatching(/no owner name/) },
      { field: 'line 2', message: 'an SOA record belongs at the apex only' },
    ]);
  });

  it('says which field of a TXT or CAA line is wrong', () => {
    expect(parseErrors('t TXT "\\255"\nc CAA 0 issue "lets encrypt"\n')).toEqual([
      { field: 'line 1', message: 'value: the TXT text is not UTF-8' },
      { field: 'line 2', message: expect.stringMatching(/^value: "lets encrypt" is not an issuer's domain name/) },
    ]);
  });
});
