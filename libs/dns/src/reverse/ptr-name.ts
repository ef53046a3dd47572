import { isIP } from 'node:net';
import { RecordInvalid } from '../records/dns-record';
import { asciiLabels, MAX_NAME_LENGTH } from '../records/zone-name';

const LABEL = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;

/** A PTR's target as a host name: IDNA to punycode, lower case, without the trailing dot, two labels at least; 400 on `field` otherwise. */
export function ptrName(input: string, field = 'ptr'): string {
  const trimmed = input.trim().replace(/\.$/, '');
  const labels = trimmed && !isIP(trimmed) ? asciiLabels(trimmed) : null;
  const name = labels?.join('.') ?? '';
  if (!labels || labels.length < 2 || name.length > MAX_NAME_LENGTH || !labels.every((label) => LABEL.test(label)))
    throw new RecordInvalid(field, `${field} must be a host name such as mail.example.com (got "${input}")`);
  return name;
}

/** The PTR an address of a VPS has when its owner set none: `<hostname>.<DNS_DEFAULT_PTR_DOMAIN>`, or none. */
export function defaultPtr(hostname: string, domain: string | undefined): string | null {
  return domain ? `${hostname}.${domain}` : null;
}
