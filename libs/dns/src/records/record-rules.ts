import { isIP, isIPv4, isIPv6 } from 'node:net';
import { canonicalIpv6 } from '@app/core';
import { DEFAULT_TTL, MAX_TTL, MIN_TTL, RecordInvalid } from './dns-record';
import type { DnsRecordData, RecordInput } from './dns-record';
import { RECORD_TYPES } from '../provider/dns-provider';
import type { RecordType } from '../provider/dns-provider';
import { MAX_NAME_LENGTH, asciiLabels, isWithin } from './zone-name';

const UINT16_MAX = 65_535;
const MAX_TXT_BYTES = 4096;
const TXT_STRING_BYTES = 255;
/** Owner names and targets: letters, digits, hyphens, and underscores for `_dmarc` and `_sip._tcp`. */
const LABEL = /^(?!-)[a-z0-9_-]{1,63}(?<!-)$/;
const HOST_LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;
const CAA_TAGS = ['issue', 'issuewild', 'iodef', 'issuemail', 'issuevmc'];
const CAA_PARAMETER = /^[a-z0-9](?:-*[a-z0-9])*=[\x21-\x3a\x3c-\x7e]*$/i;
const NUMBER_FIELDS = ['priority', 'weight', 'port'] as const;
type NumberField = (typeof NUMBER_FIELDS)[number];
const TYPES_WITH: Record<NumberField, RecordType[]> = { priority: ['MX', 'SRV'], weight: ['SRV'], port: ['SRV'] };

/** One record checked and in its canonical form (DnsRecordData), or RecordInvalid naming the first refused field. */
export function checkRecord(zone: string, input: RecordInput): DnsRecordData {
  const name = recordName(zone, input.name);
  const type = recordType(input.type);
  const ttl = recordTtl(input.ttl);
  const numbers = recordNumbers(type, input);
  const value = recordValue(zone, type, input.value, numbers.priority);
  return { name, type, ttl, value, ...numbers };
}

function recordType(written: unknown): RecordType {
  const type = typeof written === 'string' ? written.trim().toUpperCase() : '';
  const known = RECORD_TYPES.find((candidate) => candidate === type);
  if (!known)
    throw new RecordInvalid('type', `"${String(written)}" is not a record type you can create: use one of ${RECORD_TYPES.join(', ')}`);
  return known;
}

function recordName(zone: string, written: unknown): string {
  const name = typeof written === 'string' ? written.trim() : '';
  if (name === '' || name === '@') return '@';
  const absolute = name.endsWith('.');
  const labels = asciiLabels(absolute ? name.slice(0, -1) : name);
  if (!labels) throw invalidName(name);
  const full = absolute ? labels.join('.') : `${labels.join('.')}.${zone}`;
  if (absolute && !isWithin(full, zone)) throw new RecordInvalid('name', `"${name}" is not inside the zone ${zone}`);
  if (full === zone) return '@';
  const relative = full.slice(0, -zone.length - 1);
  const relativeLabels = relative.split('.');
  if (!relativeLabels.every((label, index) => LABEL.test(label) || (index === 0 && label === '*'))) throw invalidName(name);
  if (full.length > MAX_NAME_LENGTH) throw new RecordInvalid('name', `"${full}" is longer than ${MAX_NAME_LENGTH} characters`);
  return relative;
}

function invalidName(name: string): RecordInvalid {
  return new RecordInvalid(
    'name',
    `"${name}" is not a record name: each label is 1 to 63 letters, digits, hyphens or underscores (not starting or ending with a hyphen), and * only as the whole first label`,
  );
}

function recordTtl(ttl: number | null | undefined): number {
  if (ttl === undefined || ttl === null) return DEFAULT_TTL;
  if (!Number.isInteger(ttl) || ttl < MIN_TTL || ttl > MAX_TTL) {
    throw new RecordInvalid('ttl', `must be a whole number of seconds from ${MIN_TTL} to ${MAX_TTL}`);
  }
  return ttl;
}

function recordNumbers(type: RecordType, input: RecordInput): Record<NumberField, number | null> {
  const numbers = { priority: null, weight: null, port: null } as Record<NumberField, number | null>;
  for (const field of NUMBER_FIELDS) {
    const given = input[field];
    if (!TYPES_WITH[field].includes(type)) {
      if (given !== undefined && given !== null)
        throw new RecordInvalid(field, `applies only to ${TYPES_WITH[field].join(' and ')} records`);
    } else if (given === undefined || given === null) {
      throw new RecordInvalid(field, `is required for ${type} records (0 to ${UINT16_MAX})`);
    } else if (!Number.isInteger(given) || given < 0 || given > UINT16_MAX) {
      throw new RecordInvalid(field, `must be a whole number from 0 to ${UINT16_MAX}`);
    } else {
      numbers[field] = given;
    }
  }
  return numbers;
}

function recordValue(zone: string, type: RecordType, written: unknown, priority: number | null): string {
  if (typeof written !== 'string') throw new RecordInvalid('value', 'must be a string');
  const value = written.trim();
  switch (type) {
    case 'A':
      if (!isIPv4(value)) throw new RecordInvalid('value', `"${value}" is not an IPv4 address (such as 192.0.2.1)`);
      return value;
    case 'AAAA':
      // A zone index (fe80::1%eth0) means nothing outside the host that wrote it.
      if (!isIPv6(value) || value.includes('%'))
        throw new RecordInvalid('value', `"${value}" is not an IPv6 address (such as 2001:db8::1)`);
      return canonicalIpv6(value);
    case 'MX':
      if (value !== '.') return targetName(zone, value);
      // RFC 7505: a null MX says the domain takes no mail; it is `0 .`.
      if (priority !== 0) throw new RecordInvalid('priority', 'a null MX (.) has priority 0');
      return value;
    case 'SRV':
      return value === '.' ? value : targetName(zone, value);
    case 'CNAME':
    case 'NS':
      return targetName(zone, value);
    case 'TXT':
      return txtValue(written);
    case 'CAA':
      return caaValue(value);
  }
}

/** A target is absolute even without its trailing dot (`mail.example.net`); `@` is the zone's apex. */
function targetName(zone: string, written: string): string {
  if (written === '@') return `${zone}.`;
  const name = written.replace(/\.$/, '');
  if (isIP(name)) throw new RecordInvalid('value', `must be a host name, not an IP address (${name})`);
  const labels = asciiLabels(name);
  if (!labels || !labels.every((label) => LABEL.test(label))) throw new RecordInvalid('value', `"${written}" is not a host name`);
  if (labels.length < 2) {
    throw new RecordInvalid('value', `"${written}" is not a full host name: write it whole (mail.${zone}), or @ for the zone's apex`);
  }
  const host = labels.join('.');
  if (host.length > MAX_NAME_LENGTH) throw new RecordInvalid('value', `"${host}" is longer than ${MAX_NAME_LENGTH} characters`);
  return `${host}.`;
}

function txtValue(text: string): string {
  if (text === '') throw new RecordInvalid('value', 'a TXT record needs some text');
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.toString('utf8') !== text) throw new RecordInvalid('value', 'is not valid Unicode text');
  if (bytes.length > MAX_TXT_BYTES) {
    throw new RecordInvalid('value', `is ${bytes.length} bytes long: a TXT record holds at most ${MAX_TXT_BYTES} bytes (UTF-8)`);
  }
  return text;
}

/** `0 issue "letsencrypt.org"` from itself, `0 ISSUE letsencrypt.org` or `0 issue ""` (-> `0 issue ";"`). */
function caaValue(written: string): string {
  const parts = /^(\d+)\s+([a-z0-9]+)\s+(.+)$/is.exec(written);
  if (!parts) throw new RecordInvalid('value', 'a CAA record is flags, tag and value, such as 0 issue "letsencrypt.org"');
  const flags = Number(parts[1]);
  if (flags > 255) throw new RecordInvalid('value', `the CAA flags are 0 to 255 (got ${parts[1]})`);
  const tag = parts[2].toLowerCase();
  if (!CAA_TAGS.includes(tag)) throw new RecordInvalid('value', `the CAA tag must be one of ${CAA_TAGS.join(', ')} (got ${parts[2]})`);
  const quoted = /^"([^"\\]*)"$/.exec(parts[3]);
  const text = quoted ? quoted[1] : parts[3];
  if (!quoted && /["\\]/.test(text)) throw new RecordInvalid('value', 'the CAA value is one string, without quotes or backslashes inside');
  if (!/^[\x20-\x7e]*$/.test(text)) throw new RecordInvalid('value', 'the CAA value is printable ASCII');
  const value = tag === 'iodef' ? iodefValue(text) : issuerValue(text);
  return `${flags} ${tag} "${value}"`;
}

function iodefValue(text: string): string {
  const url = URL.canParse(text) ? new URL(text) : null;
  const reportable = url && (url.protocol === 'mailto:' ? url.pathname.includes('@') : ['http:', 'https:'].includes(url.protocol));
  if (!reportable) throw new RecordInvalid('value', 'the iodef value must be a mailto: or http(s): URL');
  return text;
}

/** RFC 8659 §4.2: `[domain] [; key=value]...`; no domain at all (`;`) forbids issuing. */
function issuerValue(text: string): string {
  const [domainPart, ...parameterParts] = text.split(';');
  const domain = domainPart.trim().replace(/\.$/, '');
  const labels = domain === '' ? [] : asciiLabels(domain);
  if (!labels || (domain !== '' && (labels.length < 2 || !labels.every((label) => HOST_LABEL.test(label))))) {
    throw new RecordInvalid('value', `"${domain}" is not an issuer's domain name (such as letsencrypt.org)`);
  }
  const parameters = parameterParts.map((part) => part.trim()).filter((part) => part !== '');
  const wrong = parameters.find((parameter) => !CAA_PARAMETER.test(parameter));
  if (wrong) throw new RecordInvalid('value', `"${wrong}" is not a CAA parameter (key=value)`);
  if (labels.length === 0 && parameters.length === 0) return ';';
  return [labels.join('.'), ...parameters].join('; ');
}

export interface RecordSetProblem {
  /** The record that breaks the rule, the later of two that clash. */
  index: number;
  error: RecordInvalid;
}

/** The rules between records (CNAME alone, nothing twice, the apex's NS), over the zone's whole list after a change. */
export function checkRecordSet(zone: string, records: DnsRecordData[]): void {
  const [first] = recordSetProblems(zone, records);
  if (first) throw first.error;
}

/** Every record that breaks a rule of checkRecordSet (a zone file reports them all, line by line). */
export function recordSetProblems(zone: string, records: DnsRecordData[]): RecordSetProblem[] {
  const problems: RecordSetProblem[] = [];
  const identities = new Set<string>();
  const typesByName = new Map<string, RecordType[]>();
  const nullMxNames = new Set<string>();
  records.forEach((record, index) => {
    const identity = `${record.name} ${record.type} ${rdataOf(zone, record)}`;
    const earlier = typesByName.get(record.name) ?? [];
    const error = clash(zone, record, earlier, identities.has(identity), nullMxNames.has(record.name));
    if (error) problems.push({ index, error });
    identities.add(identity);
    typesByName.set(record.name, [...earlier, record.type]);
    if (record.type === 'MX' && record.value === '.') nullMxNames.add(record.name);
  });
  return problems;
}

function clash(zone: string, record: DnsRecordData, earlierTypes: RecordType[], repeated: boolean, nullMx: boolean): RecordInvalid | null {
  const where = record.name === '@' ? `the apex (${zone})` : `${record.name}.${zone}`;
  if (record.name === '@' && record.type === 'CNAME') {
    return new RecordInvalid(
      'name',
      `a CNAME cannot be at the apex (${zone}): it holds the zone's SOA and NS records; use A and AAAA records`,
    );
  }
  if (record.name === '@' && record.type === 'NS') {
    return new RecordInvalid('name', `the apex's NS records are the provider's: NS records delegate a name below ${zone}`);
  }
  if (repeated) return new RecordInvalid('value', `this ${record.type} record of ${where} already exists`);
  if (earlierTypes.includes('CNAME')) {
    return new RecordInvalid('type', `${where} has a CNAME, which must be the only record at its name`);
  }
  if (record.type === 'CNAME' && earlierTypes.length > 0) {
    return new RecordInvalid(
      'type',
      `${where} already has ${[...new Set(earlierTypes)].join(', ')} records: a CNAME must be the only record at its name`,
    );
  }
  const nullMxClash = record.type === 'MX' && (nullMx || (record.value === '.' && earlierTypes.includes('MX')));
  if (nullMxClash) return new RecordInvalid('value', `${where} has a null MX (.), which must be its only MX record`);
  return null;
}

/** The record's data in zone-file presentation form, as PowerDNS takes it in `content`. */
export function rdataOf(_zone: string, record: DnsRecordData): string {
  switch (record.type) {
    case 'MX':
      return `${record.priority} ${record.value}`;
    case 'SRV':
      return `${record.priority} ${record.weight} ${record.port} ${record.value}`;
    case 'TXT':
      return txtStrings(record.value).map(quoted).join(' ');
    default:
      return record.value;
  }
}

/** The text's UTF-8 bytes in strings of at most 255 bytes, never splitting a character. */
function txtStrings(text: string): Buffer[] {
  const strings: Buffer[] = [];
  let current: Buffer[] = [];
  let size = 0;
  for (const character of text) {
    const bytes = Buffer.from(character, 'utf8');
    if (size + bytes.length > TXT_STRING_BYTES) {
      strings.push(Buffer.concat(current));
      current = [];
      size = 0;
    }
    current.push(bytes);
    size += bytes.length;
  }
  strings.push(Buffer.concat(current));
  return strings;
}

function quoted(bytes: Buffer): string {
  return `"${[...bytes].map(escapedByte).join('')}"`;
}

function escapedByte(byte: number): string {
  if (byte === 0x22 || byte === 0x5c) return `\\${String.fromCharCode(byte)}`;
  if (byte >= 0x20 && byte <= 0x7e) return String.fromCharCode(byte);
  return `\\${String(byte).padStart(3, '0')}`;
}

/** A TXT record's text from its presentation form (`"v=spf1 " "-all"`, as dig prints it): the strings joined, escapes undone. */
export function txtFromRdata(rdata: string): string {
  const bytes: number[] = [];
  let position = 0;
  let strings = 0;
  while (position < rdata.length) {
    if (/\s/.test(rdata[position])) {
      position++;
      continue;
    }
    strings++;
    position = readCharacterString(rdata, position, bytes);
  }
  if (strings === 0) throw new RecordInvalid('value', 'a TXT record needs some text');
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(Uint8Array.from(bytes));
  } catch {
    throw new RecordInvalid('value', 'the TXT text is not UTF-8');
  }
}

/** Appends one string's bytes (quoted, or a bare word); answers the position after it. */
function readCharacterString(rdata: string, start: number, bytes: number[]): number {
  const isQuoted = rdata[start] === '"';
  let position = isQuoted ? start + 1 : start;
  for (;;) {
    if (position >= rdata.length) {
      if (isQuoted) throw new RecordInvalid('value', 'a quoted string is not closed');
      return position;
    }
    const character = rdata[position];
    if (isQuoted ? character === '"' : /\s/.test(character)) return position + 1;
    if (!isQuoted && character === '"') throw new RecordInvalid('value', 'a quote inside an unquoted string');
    if (character === '\\') {
      const decimal = /^\d{3}/.exec(rdata.slice(position + 1, position + 4));
      if (decimal) {
        if (Number(decimal[0]) > 255) throw new RecordInvalid('value', `\\${decimal[0]} is not a byte`);
        bytes.push(Number(decimal[0]));
        position += 4;
        continue;
      }
      position++;
      if (position >= rdata.length) throw new RecordInvalid('value', 'a backslash ends the text');
    }
    const codePoint = String.fromCodePoint(rdata.codePointAt(position)!);
    bytes.push(...Buffer.from(codePoint, 'utf8'));
    position += codePoint.length;
  }
}
