import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { AppConfig } from '@app/core';

const R = 8;
const P = 1;
const KEY_LENGTH = 32;

/** scrypt's key derivation (an object, so a spec can watch what is derived and when). */
export const scryptKdf = {
  derive(password: string, salt: Buffer, n: number, r: number, p: number): Promise<Buffer> {
    const maxmem = 2 * 128 * n * r * p;
    return new Promise((resolve, reject) =>
      scrypt(password.normalize('NFKC'), salt, KEY_LENGTH, { N: n, r, p, maxmem }, (err, key) => (err ? reject(err) : resolve(key))),
    );
  },
};

/**
 * scrypt, encoded as `scrypt$N$r$p$salt$hash`. New hashes use N = 2^PASSWORD_HASH_COST (15 by
 * default: 32 MiB per hash; production refuses less); a stored hash is checked with its own
 * parameters, and `needsRehash` tells when it was made with others.
 */
@Injectable()
export class PasswordHasher {
  private readonly n: number;

  constructor(config: AppConfig) {
    this.n = 2 ** config.passwordHashCost;
  }

  async hash(password: string): Promise<string> {
    const salt = randomBytes(16);
    const key = await scryptKdf.derive(password, salt, this.n, R, P);
    return ['scrypt', this.n, R, P, salt.toString('base64'), key.toString('base64')].join('$');
  }

  async verify(password: string, encoded: string | undefined): Promise<boolean> {
    if (!encoded) {
      // Same work as a real check, so a missing account cannot be told apart by timing. Not a hash
      // made at start: that was 32 MiB of scrypt at every replica's start, most of its peak.
      await scryptKdf.derive(password, randomBytes(16), this.n, R, P);
      return false;
    }
    const [scheme, n, r, p, salt, hash] = encoded.split('$');
    if (scheme !== 'scrypt') return false;
    const expected = Buffer.from(hash, 'base64');
    const actual = await scryptKdf.derive(password, Buffer.from(salt, 'base64'), Number(n), Number(r), Number(p));
    return expected.length === actual.length && timingSafeEqual(expected, actual);
  }

  /** True when the hash was made with other parameters than new hashes get now. */
  needsRehash(encoded: string): boolean {
    const [scheme, n, r, p] = encoded.split('$');
    return scheme !== 'scrypt' || Number(n) !== this.n || Number(r) !== R || Number(p) !== P;
  }
}
