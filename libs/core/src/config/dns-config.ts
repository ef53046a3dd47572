import { domainToASCII } from 'node:url';
import type { DnsConfig } from './app-config';
import type { EnvReader } from './env-reader';

const HOST_NAME = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)+$/;

function names(env: EnvReader, variable: string, fallback: string): string[] {
  const out: string[] = [];
  for (const entry of (env.string(variable, fallback) ?? '')
    .split(',')
    .map((part) => part.trim().replace(/\.$/, ''))
    .filter(Boolean)) {
    const name = domainToASCII(entry);
    if (HOST_NAME.test(name)) out.push(name);
    else env.problems.push(`${variable} must be domain names, comma-separated, e.g. ns1.example.net,ns2.example.net (got "${entry}")`);
  }
  return out;
}

/** DNS_PROVIDER and PowerDNS's POWERDNS_*, DNS_NAMESERVERS, DNS_DEFAULT_PTR_DOMAIN, DNS_RESERVED_ZONES, DNS_TIMEOUT_MS and the limits. */
export function dnsConfig(env: EnvReader): DnsConfig {
  const provider = env.oneOf('DNS_PROVIDER', ['simulator', 'powerdns'] as const, 'simulator');
  const apiUrl = env.url('POWERDNS_API_URL', undefined, ['http:', 'https:'])?.replace(/\/+$/, '');
  const apiKey = env.string('POWERDNS_API_KEY');
  if (provider === 'powerdns' && (!apiUrl || !apiKey))
    env.problems.push('POWERDNS_API_URL and POWERDNS_API_KEY are required with DNS_PROVIDER=powerdns');
  const serverId = env.string('POWERDNS_SERVER_ID', 'localhost')!;
  if (!/^[A-Za-z0-9_.-]{1,64}$/.test(serverId))
    env.problems.push(`POWERDNS_SERVER_ID must be a server id such as localhost (got "${serverId}")`);
  const nameservers = names(env, 'DNS_NAMESERVERS', 'ns1.example.net,ns2.example.net');
  if (!nameservers.length) env.problems.push('DNS_NAMESERVERS must name at least one nameserver');
  const [defaultPtrDomain] = names(env, 'DNS_DEFAULT_PTR_DOMAIN', '');
  return {
    provider,
    powerDns: { apiUrl: apiUrl ?? '', apiKey: apiKey ?? '', serverId },
    nameservers,
    defaultPtrDomain,
    reservedZones: names(env, 'DNS_RESERVED_ZONES', ''),
    timeoutMs: env.int('DNS_TIMEOUT_MS', 5000, 100, 60_000),
    zonesPerAccount: env.int('DNS_ZONES_PER_ACCOUNT', 100, 1, 100_000),
    recordsPerZone: env.int('DNS_RECORDS_PER_ZONE', 5000, 1, 100_000),
  };
}
