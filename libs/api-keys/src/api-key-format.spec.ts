import { crc32 } from 'node:zlib';
import { API_KEY_LENGTH, checksum, displayPrefix, generateApiKey, isWellFormedApiKey, toBase62 } from './api-key-format';

describe('API key format', () => {
  it('is hpk_ + 32 base62 + a 6-character checksum', () => {
    const key = generateApiKey();
    expect(key).toMatch(/^hpk_[0-9A-Za-z]{38}$/);
    expect(key).toHaveLength(API_KEY_LENGTH);
    expect(isWellFormedApiKey(key)).toBe(true);
    expect(displayPrefix(key)).toBe(key.slice(0, 12));
  });

  it('computes the checksum as CRC-32 in left-padded base62', () => {
    const random = 'a'.repeat(32);
    const value = crc32(random) >>> 0;
    let decoded = 0;
    for (const ch of checksum(random))
      decoded = decoded * 62 + '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'.indexOf(ch);
    expect(decoded).toBe(value);
    expect(toBase62(0, 6)).toBe('000000');
    expect(toBase62(61, 6)).toBe('00000z');
    expect(toBase62(62, 6)).toBe('000010');
  });

  it('rejects a changed character, a wrong prefix or a wrong length', () => {
    const key = generateApiKey();
    const flipped = key.slice(0, 10) + (key[10] === 'A' ? 'B' : 'A') + key.slice(11);
    expect(isWellFormedApiKey(flipped)).toBe(false);
    expect(isWellFormedApiKey('xpk_' + key.slice(4))).toBe(false);
    expect(isWellFormedApiKey(key + 'a')).toBe(false);
    expect(isWellFormedApiKey('')).toBe(false);
  });

  it('makes distinct keys', () => {
    const keys = new Set(Array.from({ length: 1000 }, generateApiKey));
    expect(keys.size).toBe(1000);
  });
});
