import { createCipheriv, randomBytes, timingSafeEqual } from 'node:crypto';

/** RFB uses at most 8 characters of a password, padded with zero bytes. */
export const VNC_PASSWORD_LENGTH = 8;

const reverseBits = (byte: number): number => {
  let out = 0;
  for (let i = 0; i < 8; i++) out |= ((byte >> i) & 1) << (7 - i);
  return out;
};

/** The DES key RFB derives from a password: the first 8 bytes, zero padded, each byte's bits reversed. */
export function vncKey(password: string): Buffer {
  const key = Buffer.alloc(VNC_PASSWORD_LENGTH);
  Buffer.from(password, 'latin1').copy(key, 0, 0, VNC_PASSWORD_LENGTH);
  return Buffer.from(key.map(reverseBits));
}

/**
 * Single DES in ECB mode. OpenSSL 3 has dropped `des-ecb`, but two-key triple DES with both keys
 * equal (encrypt, decrypt, encrypt with the same key) is the same cipher.
 */
export function desEncrypt(key: Buffer, data: Buffer): Buffer {
  const cipher = createCipheriv('des-ede-ecb', Buffer.concat([key, key]), null);
  cipher.setAutoPadding(false);
  return Buffer.concat([cipher.update(data), cipher.final()]);
}

export const vncChallenge = (): Buffer => randomBytes(16);

/** What a client holding `password` answers to `challenge` (RFC 6143 section 7.2.2). */
export const vncResponse = (password: string, challenge: Buffer): Buffer => desEncrypt(vncKey(password), challenge);

export function vncResponseMatches(password: string, challenge: Buffer, response: Buffer): boolean {
  const expected = vncResponse(password, challenge);
  return response.length === expected.length && timingSafeEqual(expected, response);
}
