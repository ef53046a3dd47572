import { randomInt } from 'node:crypto';

/** No 0/O, 1/l/I: a password read off a screen and typed at a console is typed right. */
const ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789';
export const ROOT_PASSWORD_LENGTH = 20;
export const ROOT_PASSWORD_PATTERN = /^[A-HJ-NP-Za-km-z2-9]{20}$/;

/** A new root password: 20 characters of 57, about 116 bits, from the crypto RNG. */
export function rootPassword(): string {
  let password = '';
  for (let i = 0; i < ROOT_PASSWORD_LENGTH; i++) password += ALPHABET[randomInt(ALPHABET.length)];
  return password;
}
