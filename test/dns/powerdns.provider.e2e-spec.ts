import { DnsProvider, DnsRecordSet, DnsRejected, DnsUnavailable, DnsZoneHeld } from '../../libs/dns/src/provider/dns-provider';
import { PowerDnsProvider } from '../../libs/dns/src/provider/powerdns.provider';
import { dig, PowerDns, powerDnsAvailable, startPowerDns } from '../support/powerdns';
import { waitFor } from '../support/wait-for';

/**
 * The PowerDNS adapter against a real PowerDNS Authoritative (test/support/powerdns.ts, a private
 * server on loopback ports): zones with the API's SOA serial kept, every record type the API
 * writes as dig sees it, atomic changes, refusals as DnsRejected, an outage (refused connection,
 * a hung server, a wrong key) as DnsUnavailable. No app: the adapter alone.
 */
(powerDnsAvailable() ? describe : describe.skip)('PowerDnsProvider (a real PowerDNS)', () => {
  const ZONE = 'example.com.';
  const NAMESERVERS = ['ns1.example.net.', 'ns2.example.net.'];
  const soa = (serial: number): DnsRecordSet => ({
    name: ZONE,
    type: 'SOA',
    ttl: 3600,
    contents: [`ns1.example.net. hostmaster.example.com. ${serial} 3600 600 604800 300`],
  });
  const set = (name: string, type: DnsRecordSet['type'], contents: string[], ttl = 300): DnsRecordSet => ({ name, type, ttl, contents });
  let pdns: PowerDns;
  let dns: DnsProvider;
  const query = (name: string, type: string) => dig(pdns.dnsPort, name, type);

  beforeAll(async () => {
    pdns = await startPowerDns();
    dns = new PowerDnsProvider({ apiUrl: pdns.apiUrl, apiKey: pdns.apiKey, serverId: pdns.serverId, timeoutMs: 1000 });
  });
  afterAll(() => pdns?.stop());

  it('creates a zone with its NS and the SOA serial as given', async () => {
    expect(dns.kind).toBe('powerdns');
    expect(await dns.reachable()).toBe(true);
    await dns.createZone(ZONE, NAMESERVERS, soa(2026112801));
    expect(await query(ZONE, 'SOA')).toEqual(['ns1.example.net. hostmaster.example.com. 2026112801 3600 600 604800 300']);
    expect((await query(ZONE, 'NS')).sort()).toEqual(NAMESERVERS);
  });

  it('replaces record sets of every type, as dig answers them, and keeps the serial', async () => {
    const txt = '"v=spf1 \\"quoted\\"; x" "h\\195\\169llo"';
    await dns.replaceRecordSets(ZONE, [
      set(`www.${ZONE}`, 'A', ['192.0.2.10', '192.0.2.11']),
      set(`www.${ZONE}`, 'AAAA', ['2001:db8::10']),
      set(ZONE, 'MX', ['10 mail.example.com.']),
      set(ZONE, 'TXT', [txt]),
      set(`utf8.${ZONE}`, 'TXT', ['"héllo wörld"']),
      set(ZONE, 'CAA', ['0 issue "letsencrypt.org"']),
      set(`_sip._udp.${ZONE}`, 'SRV', ['10 5 5060 sip.example.com.']),
      set(`alias.${ZONE}`, 'CNAME', ['www.example.com.']),
    ]);
    expect((await query(`www.${ZONE}`, 'A')).sort()).toEqual(['192.0.2.10', '192.0.2.11']);
    expect(await query(`www.${ZONE}`, 'AAAA')).toEqual(['2001:db8::10']);
    expect(await query(ZONE, 'MX')).toEqual(['10 mail.example.com.']);
    expect(await query(ZONE, 'TXT')).toEqual([txt]);
    // Raw UTF-8 in the content is served as the same bytes; dig prints them as \DDD escapes.
    expect(await query(`utf8.${ZONE}`, 'TXT')).toEqual(['"h\\195\\169llo w\\195\\182rld"']);
    expect(await query(ZONE, 'CAA')).toEqual(['0 issue "letsencrypt.org"']);
    expect(await query(`_sip._udp.${ZONE}`, 'SRV')).toEqual(['10 5 5060 sip.example.com.']);
    expect(await query(`alias.${ZONE}`, 'CNAME')).toEqual(['www.example.com.']);
    expect(await query(ZONE, 'SOA')).toEqual(['ns1.example.net. hostmaster.example.com. 2026112801 3600 600 604800 300']);
  });

  it('removes a set replaced by empty contents, and one the zone does not hold is fine', async () => {
    await dns.replaceRecordSets(ZONE, [set(`www.${ZONE}`, 'AAAA', []), set(`never.${ZONE}`, 'A', [])]);
    expect(await query(`www.${ZONE}`, 'AAAA')).toEqual([]);
    expect(await query(`www.${ZONE}`, 'A')).toHaveLength(2);
  });

  it('applies a change entirely or not at all: an invalid set refuses the whole change (DnsRejected)', async () => {
    const change = dns.replaceRecordSets(ZONE, [
      set(`new.${ZONE}`, 'A', ['192.0.2.20']),
      set(`www.${ZONE}`, 'A', ['192.0.2.99']),
      set(`bad.${ZONE}`, 'A', ['not-an-ip']),
    ]);
    await expect(change).rejects.toThrow(DnsRejected);
    await expect(change).rejects.toThrow(/not-an-ip/);
    expect(await query(`new.${ZONE}`, 'A')).toEqual([]);
    expect((await query(`www.${ZONE}`, 'A')).sort()).toEqual(['192.0.2.10', '192.0.2.11']);
    await expect(dns.replaceRecordSets(ZONE, [set('www.other.org.', 'A', ['192.0.2.1'])])).rejects.toThrow(/out of zone/);
    await expect(dns.replaceRecordSets(ZONE, [set(`www.${ZONE}`, 'CNAME', ['x.example.net.'])])).rejects.toThrow(DnsRejected);
  });

  it('lists the zones and reads back every set, SOA and NS included', async () => {
    expect(await dns.listZones()).toEqual([ZONE]);
    const sets = await dns.recordSets(ZONE);
    const byKey = new Map(sets!.map((s) => [`${s.name} ${s.type}`, s]));
    expect(byKey.get(`${ZONE} SOA`)).toEqual(soa(2026112801));
    expect(byKey.get(`${ZONE} NS`)).toEqual({ name: ZONE, type: 'NS', ttl: 3600, contents: NAMESERVERS });
    expect(byKey.get(`${ZONE} MX`)).toEqual(set(ZONE, 'MX', ['10 mail.example.com.']));
    // The content as written, escapes and raw UTF-8 alike (PowerDNS does not normalise it).
    expect(byKey.get(`${ZONE} TXT`)!.contents).toEqual(['"v=spf1 \\"quoted\\"; x" "h\\195\\169llo"']);
    expect(byKey.get(`utf8.${ZONE} TXT`)!.contents).toEqual(['"héllo wörld"']);
    expect(byKey.get(`www.${ZONE} A`)!.contents.sort()).toEqual(['192.0.2.10', '192.0.2.11']);
    expect(byKey.has(`www.${ZONE} AAAA`)).toBe(false);
    expect(byKey.has(`new.${ZONE} A`)).toBe(false);
    expect(await dns.recordSets('missing.example.')).toBeNull();
  });

  it('replaces a zone left on the server when creating it again', async () => {
    await dns.createZone(ZONE, ['ns3.example.net.'], soa(2026112901));
    expect(await query(ZONE, 'SOA')).toEqual(['ns1.example.net. hostmaster.example.com. 2026112901 3600 600 604800 300']);
    expect(await query(ZONE, 'NS')).toEqual(['ns3.example.net.']);
    expect(await query(`www.${ZONE}`, 'A')).toEqual([]);
    expect((await dns.recordSets(ZONE))!.map((s) => s.type).sort()).toEqual(['NS', 'SOA']);
  });

  it('deletes a zone, and deleting it again is fine', async () => {
    await dns.createZone('example.org.', NAMESERVERS, { ...soa(1), name: 'example.org.' });
    expect((await dns.listZones()).sort()).toEqual([ZONE, 'example.org.']);
    await dns.deleteZone(ZONE);
    await dns.deleteZone(ZONE);
    expect(await dns.listZones()).toEqual(['example.org.']);
    expect(await dns.recordSets(ZONE)).toBeNull();
    expect(await query(ZONE, 'SOA')).toEqual([]);
    await expect(dns.replaceRecordSets(ZONE, [set(`www.${ZONE}`, 'A', ['192.0.2.1'])])).rejects.toThrow(DnsUnavailable);
  });

  it("neither lists, replaces nor deletes a zone it did not make (the provider's own, made by hand)", async () => {
    const made = await fetch(`${pdns.apiUrl}/api/v1/servers/localhost/zones`, {
      method: 'POST',
      headers: { 'X-API-Key': pdns.apiKey, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'provider.example.', kind: 'Native', nameservers: ['ns1.example.net.'] }),
    });
    expect(made.status).toBe(201);
    expect(await dns.listZones()).not.toContain('provider.example.');
    await expect(dns.createZone('provider.example.', NAMESERVERS, { ...soa(7), name: 'provider.example.' })).rejects.toThrow(DnsZoneHeld);
    await dns.deleteZone('provider.example.');
    expect(await query('provider.example.', 'NS')).toEqual(['ns1.example.net.']);
  });

  it('throws DnsUnavailable, without the key, when the key is wrong', async () => {
    const wrong = new PowerDnsProvider({ apiUrl: pdns.apiUrl, apiKey: 'not-the-key', serverId: 'localhost', timeoutMs: 1000 });
    await expect(wrong.listZones()).rejects.toThrow(new DnsUnavailable('PowerDNS refused the API key'));
    expect(await wrong.reachable()).toBe(false);
  });

  /**
   * Every call throws DnsUnavailable naming PowerDNS and never the key; reachable() answers false.
   * A request that timed out may still be applied when the server wakes: none here touches example.org.
   */
  const everyCallUnavailable = async () => {
    const calls: Promise<unknown>[] = [
      dns.createZone('down.example.', NAMESERVERS, { ...soa(1), name: 'down.example.' }),
      dns.deleteZone('gone.example.'),
      dns.replaceRecordSets('example.org.', [set('www.example.org.', 'A', ['192.0.2.1'])]),
      dns.listZones(),
      dns.recordSets('example.org.'),
    ];
    for (const call of calls) {
      const err = await call.then(
        () => null,
        (e: Error) => e,
      );
      expect(err).toBeInstanceOf(DnsUnavailable);
      expect(err!.message).toMatch(/PowerDNS/);
      expect(err!.message).not.toContain(pdns.apiKey);
    }
    expect(await dns.reachable()).toBe(false);
  };

  it('throws DnsUnavailable on every call while the server hangs (timeout), and works again after', async () => {
    pdns.pause();
    try {
      await everyCallUnavailable();
    } finally {
      pdns.resume();
    }
    // Once resumed, the server first works through the requests it held; on a loaded machine that
    // can outlast one 1 s probe, so the test waits for it to answer.
    expect(
      await waitFor(
        () => dns.reachable(),
        (up) => up,
        30_000,
      ),
    ).toBe(true);
    expect(await dns.listZones()).toContain('example.org.');
  });

  it('throws DnsUnavailable on every call while the server is down (refused), and works again after', async () => {
    await pdns.kill();
    await everyCallUnavailable();
    await pdns.restart();
    expect(await dns.reachable()).toBe(true);
    expect(await dns.listZones()).toContain('example.org.');
    expect(await dig(pdns.dnsPort, 'example.org.', 'SOA')).toEqual(['ns1.example.net. hostmaster.example.com. 1 3600 600 604800 300']);
  });
});
