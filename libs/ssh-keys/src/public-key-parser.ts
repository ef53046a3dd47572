import sshpk from 'sshpk';

export interface ParsedPublicKey {
  /** `type base64 [comment]`, normalised as OpenSSH writes it. */
  publicKey: string;
  type: string;
  bits: number;
  fingerprint: string;
}

export class PublicKeyError extends Error {}

const ACCEPTED: Record<string, (bits: number) => string | null> = {
  'ssh-ed25519': () => null,
  'ecdsa-sha2-nistp256': () => null,
  'ecdsa-sha2-nistp384': () => null,
  'ecdsa-sha2-nistp521': () => null,
  'ssh-rsa': (bits) => (bits < 2048 ? `RSA keys must have at least 2048 bits (this one has ${bits})` : null),
};
const MAX_LENGTH = 16 * 1024;

/**
 * One OpenSSH public key line: `type base64 [comment]`, with surrounding whitespace and inner runs
 * of blanks handled as OpenSSH does. Error messages never repeat the input (it may be a private key).
 */
export function parsePublicKey(input: string): ParsedPublicKey {
  if (input.length > MAX_LENGTH) throw new PublicKeyError(`the key is longer than ${MAX_LENGTH} characters`);
  if (/PRIVATE KEY/.test(input)) {
    throw new PublicKeyError('this is a private key: paste the public key (the .pub file) instead, and keep the private key secret');
  }
  const line = input.trim();
  if (/[\r\n]/.test(line)) throw new PublicKeyError('expected a single line in OpenSSH format: "<type> <base64> [comment]"');
  const [type, data, ...commentParts] = line.split(/[ \t]+/);
  if (!type || !data) throw new PublicKeyError('expected OpenSSH format: "<type> <base64> [comment]"');
  if (type === 'ssh-dss') throw new PublicKeyError('DSA keys are not accepted; use ed25519, ECDSA or RSA of at least 2048 bits');
  if (!ACCEPTED[type]) {
    throw new PublicKeyError(`unsupported key type "${type.slice(0, 40)}"; accepted: ${Object.keys(ACCEPTED).join(', ')}`);
  }
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(data)) throw new PublicKeyError('the key data is not valid base64');
  const blobType = typeInBlob(Buffer.from(data, 'base64'));
  if (blobType !== null && blobType !== type && ACCEPTED[blobType] !== undefined) {
    throw new PublicKeyError(`the key data is a "${blobType}" key, not "${type}"`);
  }
  let key: sshpk.Key;
  try {
    if (blobType !== type) throw new Error('type mismatch');
    key = sshpk.parseKey(`${type} ${data}`, 'ssh');
  } catch {
    throw new PublicKeyError('the key data is truncated or corrupt');
  }
  const refusal = ACCEPTED[type](key.size);
  if (refusal) throw new PublicKeyError(refusal);
  const comment = commentParts.join(' ');
  return {
    publicKey: comment ? `${type} ${data} ${comment}` : `${type} ${data}`,
    type,
    bits: key.size,
    fingerprint: key.fingerprint('sha256').toString(),
  };
}

/** The key type written inside the key data (an SSH string: 4-byte length, then the name). */
function typeInBlob(blob: Buffer): string | null {
  if (blob.length < 4) return null;
  const length = blob.readUInt32BE(0);
  if (length === 0 || length > 64 || blob.length < 4 + length) return null;
  return blob.subarray(4, 4 + length).toString('latin1');
}
