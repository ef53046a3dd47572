import { DEFAULT_TTL, MAX_TTL, MIN_TTL, RecordInvalid } from '../records/dns-record';
import type { DnsRecordData, RecordInput } from '../records/dns-record';
import { RECORD_TYPES } from '../provider/dns-provider';
import type { RecordType } from '../provider/dns-provider';
import { checkRecord, rdataOf, recordSetProblems, txtFromRdata } from '../records/record-rules';
import { asciiLabels, isWithin } from '../records/zone-name';

export interface ZoneFileError {
  /** `line 12`, or `file` for what belongs to no line. */
  field: string;
  message: string;
}

/** The file is refused: every refused line, not just the first. */
export class ZoneFileInvalid extends Error {
  constructor(readonly errors: ZoneFileError[]) {
    super(
      `The zone file has ${errors.length} refused ${errors.length === 1 ? 'line' : 'lines'}: ${errors[0]?.field} ${errors[0]?.message}`,
    );
    this.name = 'ZoneFileInvalid';
  }
}

/** A line's fault that is not one record field's (syntax, directives, types). */
class LineRefused extends Error {}

interface Token {
  text: string;
  quoted: boolean;
}

/** One record or directive: its tokens across parenthesised lines, numbered by its first line. */
interface Entry {
  line: number;
  ownerOmitted: boolean;
  tokens: Token[];
}

interface ParsedRecord {
  record: DnsRecordData;
  line: number;
}

interface ParserState {
  origin: string;
  defaultTtl?: number;
  lastTtl?: number;
  owner?: string;
}

const CLASS = /^(IN|CH|CS|HS|ANY|CLASS\d+)$/i;
const TTL_TEXT = /^(\d+[smhdw]?)+$/i;
const TTL_UNITS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400, w: 604_800 };
const RDATA_TOKENS: Partial<Record<RecordType, number>> = { A: 1, AAAA: 1, CNAME: 1, NS: 1, MX: 2, SRV: 4, CAA: 3 };

/**
 * The zone's records from a BIND zone file, each checked as the API checks one; the SOA and the
 * apex's NS records naming `providerNameservers` are skipped (the provider's). Records of one name
 * and type take the lowest TTL among them; a record written twice is kept once.
 */
export function parseZoneFile(zone: string, text: string, providerNameservers: string[]): { records: DnsRecordData[] } {
  const { entries, errors } = tokenize(text);
  const state: ParserState = { origin: zone };
  const providers = new Set(providerNameservers.map((name) => normalised(name.replace(/\.$/, ''))));
  const parsed: ParsedRecord[] = [];
  for (const entry of entries) {
    try {
      const record = readEntry(zone, entry, state);
      if (record && !(record.type === 'NS' && record.name === '@' && providers.has(record.value.replace(/\.$/, '')))) {
        parsed.push({ record, line: entry.line });
      }
    } catch (error) {
      if (error instanceof RecordInvalid) errors.push({ field: `line ${entry.line}`, message: `${error.field}: ${error.message}` });
      else if (error instanceof LineRefused) errors.push({ field: `line ${entry.line}`, message: error.message });
      else throw error;
    }
  }
  const unique = withoutRepeats(zone, withLowestTtls(parsed));
  const records = unique.map(({ record }) => record);
  for (const { index, error } of recordSetProblems(zone, records)) {
    errors.push({ field: `line ${unique[index].line}`, message: `${error.field}: ${error.message}` });
  }
  if (errors.length > 0) throw new ZoneFileInvalid(errors.sort((a, b) => lineNumber(a) - lineNumber(b) || 0));
  return { records };
}

function lineNumber(error: ZoneFileError): number {
  return Number(/\d+/.exec(error.field)?.[0] ?? Infinity);
}

function tokenize(text: string): { entries: Entry[]; errors: ZoneFileError[] } {
  const entries: Entry[] = [];
  const errors: ZoneFileError[] = [];
  let entry: Entry | null = null;
  let depth = 0;
  const lines = text.split(/\r?\n/);
  for (let index = 0; index < lines.length; index++) {
    const content = lines[index];
    const line = index + 1;
    const current: Entry = entry ?? { line, ownerOmitted: /^[ \t]/.test(content), tokens: [] };
    let position = 0;
    let fault: string | null = null;
    while (position < content.length && !fault) {
      const character = content[position];
      if (/\s/.test(character)) position++;
      else if (character === ';') break;
      else if (character === '(') {
        depth++;
        position++;
      } else if (character === ')') {
        if (--depth < 0) fault = 'a closing parenthesis without an opening one';
        position++;
      } else if (character === '"') {
        const end = closingQuote(content, position + 1);
        if (end < 0) fault = 'a quoted string is not closed';
        else current.tokens.push({ text: content.slice(position + 1, end), quoted: true });
        position = end + 1;
      } else {
        const end = wordEnd(content, position);
        current.tokens.push({ text: content.slice(position, end), quoted: false });
        position = end;
      }
    }
    if (fault) {
      errors.push({ field: `line ${current.line}`, message: fault });
      depth = 0;
      entry = null;
    } else if (depth > 0) {
      entry = current;
    } else {
      if (current.tokens.length > 0) entries.push(current);
      entry = null;
    }
  }
  if (entry) errors.push({ field: `line ${entry.line}`, message: 'a parenthesis is not closed' });
  return { entries, errors };
}

/** The position of the quote closing a string opened before `start`, or -1. */
function closingQuote(content: string, start: number): number {
  for (let position = start; position < content.length; position++) {
    if (content[position] === '\\') position++;
    else if (content[position] === '"') return position;
  }
  return -1;
}

function wordEnd(content: string, start: number): number {
  let position = start;
  while (position < content.length && !/[\s;()"]/.test(content[position])) position += content[position] === '\\' ? 2 : 1;
  return Math.min(position, content.length);
}

/** The entry's record, or null for a directive or a line taken as given (the SOA). */
function readEntry(zone: string, entry: Entry, state: ParserState): DnsRecordData | null {
  const first = entry.tokens[0].text;
  if (!entry.ownerOmitted && first.startsWith('$')) {
    readDirective(zone, entry.tokens, state);
    return null;
  }
  let rest = entry.tokens;
  if (!entry.ownerOmitted) {
    state.owner = absoluteName(first, state.origin);
    rest = rest.slice(1);
  }
  if (!state.owner) throw new LineRefused('the line has no owner name, and no line before it had one');
  let ttl: number | undefined;
  let classSeen = false;
  for (; rest.length > 0; rest = rest.slice(1)) {
    const word = rest[0].text;
    if (ttl === undefined && TTL_TEXT.test(word)) ttl = ttlSeconds(word);
    else if (!classSeen && CLASS.test(word)) {
      if (word.toUpperCase() !== 'IN') throw new LineRefused(`class ${word} is not supported: records are of class IN`);
      classSeen = true;
    } else break;
  }
  // RFC 1035 §5.1: without $TTL, an omitted TTL is the last one written (a refused one is not passed on).
  if (ttl !== undefined && ttl >= MIN_TTL && ttl <= MAX_TTL) state.lastTtl = ttl;
  if (rest.length === 0) throw new LineRefused('the line has no record type');
  const type = rest[0].text.toUpperCase();
  if (type === 'SOA') {
    if (normalised(state.owner.replace(/\.$/, '')) === zone) return null;
    throw new LineRefused('an SOA record belongs at the apex only');
  }
  const known = RECORD_TYPES.find((candidate) => candidate === type);
  if (!known) throw new LineRefused(`type ${rest[0].text} is not supported: a zone file may hold ${RECORD_TYPES.join(', ')} records`);
  const input = recordInput(known, rest.slice(1), state);
  return checkRecord(zone, { ...input, name: state.owner, type: known, ttl: ttl ?? state.defaultTtl ?? state.lastTtl ?? DEFAULT_TTL });
}

function readDirective(zone: string, tokens: Token[], state: ParserState): void {
  const directive = tokens[0].text.toUpperCase();
  if (directive !== '$ORIGIN' && directive !== '$TTL') throw new LineRefused(`${tokens[0].text} is not supported`);
  if (tokens.length !== 2) throw new LineRefused(`${directive} takes one value`);
  const value = tokens[1].text;
  if (directive === '$TTL') {
    const seconds = TTL_TEXT.test(value) ? ttlSeconds(value) : NaN;
    if (!(seconds >= MIN_TTL && seconds <= MAX_TTL))
      throw new LineRefused(`$TTL must be from ${MIN_TTL} to ${MAX_TTL} seconds (got ${value})`);
    state.defaultTtl = seconds;
    return;
  }
  const origin = normalised(absoluteName(value, state.origin).replace(/\.$/, ''));
  if (!origin || !isWithin(origin, zone)) throw new LineRefused(`$ORIGIN ${value} is not ${zone} or a name inside it`);
  state.origin = origin;
}

/** The record's data fields from its tokens; names in the data are relative to $ORIGIN unless absolute. */
function recordInput(type: RecordType, data: Token[], state: ParserState): Omit<RecordInput, 'name' | 'type' | 'ttl'> {
  const expected = RDATA_TOKENS[type];
  if (expected !== undefined && data.length !== expected) {
    throw new LineRefused(`${type} takes ${expected} ${expected === 1 ? 'value' : 'values'} (got ${data.length})`);
  }
  const words = data.map((token) => token.text);
  const target = (word: string) => absoluteName(word, state.origin);
  switch (type) {
    case 'TXT':
      if (data.length === 0) throw new LineRefused('TXT takes one or more strings');
      return { value: txtFromRdata(data.map((token) => (token.quoted ? `"${token.text}"` : token.text)).join(' ')) };
    case 'MX':
      return { priority: integer(words[0]), value: target(words[1]) };
    case 'SRV':
      return { priority: integer(words[0]), weight: integer(words[1]), port: integer(words[2]), value: target(words[3]) };
    case 'CAA':
      return { value: `${words[0]} ${words[1]} ${data[2].quoted ? `"${words[2]}"` : words[2]}` };
    case 'CNAME':
    case 'NS':
      return { value: target(words[0]) };
    default:
      return { value: words[0] };
  }
}

function integer(word: string): number {
  return /^\d+$/.test(word) ? Number(word) : NaN;
}

function absoluteName(word: string, origin: string): string {
  if (word === '@') return `${origin}.`;
  return word.endsWith('.') ? word : `${word}.${origin}.`;
}

function normalised(name: string): string {
  return asciiLabels(name)?.join('.') ?? '';
}

function ttlSeconds(text: string): number {
  return [...text.matchAll(/(\d+)([smhdw]?)/gi)].reduce(
    (sum, [, count, unit]) => sum + Number(count) * TTL_UNITS[unit.toLowerCase() || 's'],
    0,
  );
}

/** RFC 2181 §5.2: one name and type, one TTL; the lowest, so no answer is cached longer than the file asks. */
function withLowestTtls(parsed: ParsedRecord[]): ParsedRecord[] {
  const lowest = new Map<string, number>();
  for (const { record } of parsed) {
    const key = `${record.name} ${record.type}`;
    lowest.set(key, Math.min(record.ttl, lowest.get(key) ?? Infinity));
  }
  return parsed.map(({ record, line }) => ({ record: { ...record, ttl: lowest.get(`${record.name} ${record.type}`)! }, line }));
}

/** A zone file may say one record twice (BIND keeps it once). */
function withoutRepeats(zone: string, parsed: ParsedRecord[]): ParsedRecord[] {
  const seen = new Set<string>();
  return parsed.filter(({ record }) => {
    const identity = `${record.name} ${record.type} ${rdataOf(zone, record)}`;
    if (seen.has(identity)) return false;
    seen.add(identity);
    return true;
  });
}
