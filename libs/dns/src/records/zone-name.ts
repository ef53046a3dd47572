import { domainToASCII } from 'node:url';
import { RecordInvalid } from './dns-record';

export const MAX_NAME_LENGTH = 253;
const ZONE_LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;
const ASCII = /^[\x20-\x7e]*$/;

/**
 * A zone's name as the API keeps it (`example.com`: no trailing dot, lower-case, IDNA as punycode),
 * or RecordInvalid('name') for a name no customer may hold.
 */
export async function zoneName(input: string, reserved: string[]): Promise<string> {
  const written = input.trim().replace(/\.$/, '');
  const labels = asciiLabels(written);
  if (!labels || !labels.every((label) => ZONE_LABEL.test(label))) {
    throw new RecordInvalid(
      'name',
      `"${written}" is not a domain name: each label is 1 to 63 letters, digits or hyphens, not starting or ending with a hyphen`,
    );
  }
  const name = labels.join('.');
  if (name.length > MAX_NAME_LENGTH) throw new RecordInvalid('name', `"${name}" is longer than ${MAX_NAME_LENGTH} characters`);
  if (labels.length < 2)
    throw new RecordInvalid('name', `"${name}" is a top-level domain: a zone is a registered name such as example.com`);
  if (isWithin(name, 'arpa')) throw new RecordInvalid('name', `"${name}" is under arpa: reverse zones are the API's own (reverse DNS)`);
  if (await isPublicSuffix(name)) {
    throw new RecordInvalid('name', `"${name}" is a public suffix: a zone is a name registered under one, such as example.${name}`);
  }
  const holder = reserved.find((taken) => isWithin(name, taken));
  if (holder) throw new RecordInvalid('name', `"${name}" is reserved (${holder} is the provider's)`);
  return name;
}

/** Whether `name` is `zone` itself or a name below it (both normalised, without trailing dots). */
export function isWithin(name: string, zone: string): boolean {
  return name === zone || name.endsWith(`.${zone}`);
}

/**
 * The name's labels in lower-case ASCII, IDNA labels as punycode (`bücher` -> `xn--bcher-kva`);
 * null when a label is empty or not valid IDNA. Which characters a label may hold is the caller's rule.
 */
export function asciiLabels(name: string): string[] | null {
  const labels = name.split('.').map(asciiLabel);
  return labels.every((label): label is string => label !== null) ? labels : null;
}

function asciiLabel(label: string): string | null {
  if (label === '' || /[\x00-\x1f\x7f]/.test(label)) return null;
  // domainToASCII reads an all-digit label as an IPv4 address: only labels that need IDNA go through it.
  if (ASCII.test(label) && !/^xn--/i.test(label)) return label.toLowerCase();
  const converted = domainToASCII(label);
  return converted === '' || converted.includes('.') ? null : converted;
}

/** The public suffix list is 2 MB of heap: loaded at the first zone a customer makes, not at every replica's start. */
async function isPublicSuffix(name: string): Promise<boolean> {
  const { parse } = await import('psl');
  const parsed = parse(name);
  return !('error' in parsed) && parsed.listed && parsed.domain === null;
}
