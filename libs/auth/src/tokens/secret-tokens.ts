import { createHash, randomBytes, randomInt } from 'node:crypto';

/** An opaque single-use token with a recognisable prefix; only its SHA-256 is stored. */
export function newSecretToken(prefix: string): { token: string; hash: string } {
  const token = prefix + randomBytes(32).toString('base64url');
  return { token, hash: hashSecretToken(token) };
}

export function hashSecretToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

const RECOVERY_ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789';

/** `xxxxx-xxxxx` from an unambiguous alphabet (about 49 bits). */
export function newRecoveryCode(): string {
  const chars = Array.from({ length: 10 }, () => RECOVERY_ALPHABET[randomInt(RECOVERY_ALPHABET.length)]).join('');
  return `${chars.slice(0, 5)}-${chars.slice(5)}`;
}

export function hashRecoveryCode(code: string): string {
  return hashSecretToken(code.trim().toLowerCase().replace(/[\s-]/g, ''));
}
