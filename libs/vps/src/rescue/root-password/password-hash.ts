import { createHash, randomInt } from 'node:crypto';

const ITOA64 = './0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const ROUNDS = 5000;
/** The byte order of SHA-512-crypt's output (Drepper's specification), three bytes to four characters. */
const ORDER = [
  [0, 21, 42], [22, 43, 1], [44, 2, 23], [3, 24, 45], [25, 46, 4], [47, 5, 26], [6, 27, 48], [28, 49, 7], [50, 8, 29], [9, 30, 51],
  [31, 52, 10], [53, 11, 32], [12, 33, 54], [34, 55, 13], [56, 14, 35], [15, 36, 57], [37, 58, 16], [59, 17, 38], [18, 39, 60],
  [40, 61, 19], [62, 20, 41],
]; // prettier-ignore

const sha512 = (...parts: Buffer[]): Buffer => {
  const hash = createHash('sha512');
  for (const part of parts) hash.update(part);
  return hash.digest();
};

/** `length` bytes of `block` repeated. */
const stretch = (block: Buffer, length: number): Buffer =>
  Buffer.concat(
    Array.from({ length: Math.ceil(length / 64) }, () => block),
    length,
  );

/**
 * The SHA-512-crypt hash (`$6$salt$...`, crypt(3) and /etc/shadow) of a password, so a rescue
 * system's root password reaches cloud-init (`chpasswd`) without ever being stored or sent in clear.
 * Node has no crypt(3); this follows the specification and is checked against its test vectors.
 */
export function sha512Crypt(password: string, salt = randomSalt()): string {
  const p = Buffer.from(password, 'utf8');
  const s = Buffer.from(salt.slice(0, 16), 'utf8');
  const b = sha512(p, s, p);
  const a = createHash('sha512').update(p).update(s).update(stretch(b, p.length));
  for (let n = p.length; n > 0; n >>= 1) a.update(n & 1 ? b : p);
  let c: Buffer = a.digest();
  const pBytes = stretch(sha512(...Array.from({ length: p.length }, () => p)), p.length);
  const sBytes = stretch(sha512(...Array.from({ length: 16 + c[0] }, () => s)), s.length);
  for (let i = 0; i < ROUNDS; i++) {
    const parts = [i & 1 ? pBytes : c];
    if (i % 3) parts.push(sBytes);
    if (i % 7) parts.push(pBytes);
    parts.push(i & 1 ? c : pBytes);
    c = sha512(...parts);
  }
  let out = '';
  const put = (w: number, chars: number) => {
    for (let k = 0; k < chars; k++, w >>= 6) out += ITOA64[w & 0x3f];
  };
  for (const [x, y, z] of ORDER) put((c[x] << 16) | (c[y] << 8) | c[z], 4);
  put(c[63], 2);
  return `$6$${s.toString('utf8')}$${out}`;
}

function randomSalt(): string {
  let salt = '';
  for (let i = 0; i < 16; i++) salt += ITOA64[randomInt(ITOA64.length)];
  return salt;
}
