import { createPublicKey } from 'node:crypto';
import sshpk from 'sshpk';
import { hasExpectedShape, readSshFields, typeInBlob } from './ssh-wire';

export interface ParsedPublicKey {
  /** `type base64 [comment]`, normalised: canonical base64, the comment as written, trimmed. */
  publicKey: string;
  type: string;
  bits: number;
  fingerprint: string;
}

export class PublicKeyError extends Error {}

const RSA_MIN_BITS = 2048;
const RSA_MAX_BITS = 16384; // OpenSSH's own limit
const ACCEPTED = new Set(['ssh-ed25519', 'ecdsa-sha2-nistp256', 'ecdsa-sha2-nistp384', 'ecdsa-sha2-nistp521', 'ssh-rsa']);
const MAX_LENGTH = 16 * 1024;
const FORMAT = '"<type> <base64> [comment]"';

/** Pastes of the wrong thing, recognised before any parsing so the message can say what to do. */
const WRONG_THINGS: [RegExp, string][] = [
  [
    /PRIVATE KEY|PuTTY-User-Key-File|b3BlbnNzaC1rZXktdjE/,
    'this is a private key: paste the public key (the .pub file) instead, and keep the private key secret',
  ],
  [/BEGIN SSH2 PUBLIC KEY/, 'this is an RFC 4716 (SSH2) public key: convert it with "ssh-keygen -i -f <file>" and paste the result'],
  [/BEGIN (RSA )?PUBLIC KEY/, 'this is a PEM public key: convert it with "ssh-keygen -i -m PKCS8 -f <file>" and paste the result'],
];

/**
 * One OpenSSH public key, read as OpenSSH reads a .pub or authorized_keys file: blank lines and
 * `#` lines are skipped, blanks around and between fields are tolerated, and the comment is the
 * rest of the line. Error messages never repeat the input (it may be a private key).
 */
export function parsePublicKey(input: string): ParsedPublicKey {
  if (input.length > MAX_LENGTH) throw new PublicKeyError(`the key is longer than ${MAX_LENGTH} characters`);
  for (const [pattern, message] of WRONG_THINGS) if (pattern.test(input)) throw new PublicKeyError(message);
  const lines = input
    .split(/\r\n|\r|\n/)
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('#'));
  if (lines.length > 1) throw new PublicKeyError(`expected a single key on a single line in OpenSSH format: ${FORMAT}`);
  refuseNonText(lines[0] ?? '');
  const match = /^(\S+)[ \t]+(\S+)(?:[ \t]+(.*))?$/.exec(lines[0] ?? '');
  if (!match) throw new PublicKeyError(`expected OpenSSH format: ${FORMAT}`);
  const [line, type, data, comment = ''] = match;
  refuseUnacceptedType(type, line);

  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(data)) throw new PublicKeyError('the key data is not valid base64');
  const blob = Buffer.from(data, 'base64');
  const blobType = typeInBlob(blob);
  if (blobType !== null && blobType !== type && (ACCEPTED.has(blobType) || blobType === 'ssh-dss')) {
    throw new PublicKeyError(`the key data is a "${blobType}" key, not "${type}"`);
  }
  const fields = readSshFields(blob);
  if (blobType !== type || !fields || !hasExpectedShape(type, fields)) throw corrupt();
  const canonical = blob.toString('base64');
  let key: sshpk.Key;
  try {
    key = sshpk.parseKey(`${type} ${canonical}`, 'ssh');
    // OpenSSL checks what sshpk does not: an EC point on its curve, a well-formed RSA key.
    createPublicKey(key.toString('pkcs8'));
  } catch {
    throw corrupt();
  }
  if (type === 'ssh-rsa' && key.size < RSA_MIN_BITS) {
    throw new PublicKeyError(`RSA keys must have at least ${RSA_MIN_BITS} bits (this one has ${key.size})`);
  }
  if (type === 'ssh-rsa' && key.size > RSA_MAX_BITS) {
    throw new PublicKeyError(`RSA keys can have at most ${RSA_MAX_BITS} bits (this one has ${key.size})`);
  }
  return {
    publicKey: comment.trim() ? `${type} ${canonical} ${comment.trim()}` : `${type} ${canonical}`,
    type,
    bits: key.size,
    fingerprint: key.fingerprint('sha256').toString(),
  };
}

/**
 * Control characters but the tab, line and paragraph separators, bidi overrides and isolates, the
 * byte order mark, noncharacters and lone surrogates: none belongs in a key line, and some made
 * cloud-init refuse the whole user-data, so no key was installed.
 */
const NOT_TEXT = /[\x00-\x08\x0a-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufeff\p{Noncharacter_Code_Point}\p{Cs}]/u;

function refuseNonText(line: string): void {
  const found = NOT_TEXT.exec(line);
  if (!found) return;
  const codePoint = found[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0');
  throw new PublicKeyError(`the key contains a control or invisible character (U+${codePoint}); remove it`);
}

function refuseUnacceptedType(type: string, line: string): void {
  if (ACCEPTED.has(type)) return;
  if (type === 'ssh-dss') throw new PublicKeyError('DSA keys are not accepted; use ed25519, ECDSA or RSA of at least 2048 bits');
  if (type.endsWith('-cert-v01@openssh.com')) throw new PublicKeyError('SSH certificates are not accepted; paste the plain public key');
  if (/[ \t](ssh-ed25519|ecdsa-sha2-nistp\d+|ssh-rsa|ssh-dss)[ \t]+AAAA/.test(line)) {
    throw new PublicKeyError(`authorized_keys options (such as from="..." or command="...") are not accepted; paste only ${FORMAT}`);
  }
  // Name the type only when it looks like one: the first word of a mistaken paste may be a secret.
  const named = /^[a-z][a-z0-9-]{0,40}(@[a-z0-9.-]{1,40})?$/.test(type) ? ` "${type}"` : '';
  throw new PublicKeyError(`unsupported key type${named}; accepted: ${[...ACCEPTED].join(', ')}`);
}

function corrupt(): PublicKeyError {
  return new PublicKeyError('the key data is truncated or corrupt');
}
