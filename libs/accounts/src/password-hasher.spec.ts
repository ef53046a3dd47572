import { AppConfig } from '@app/core';
import { PasswordHasher, scryptKdf } from './password-hasher';

const hasher = (cost: number) => new PasswordHasher({ passwordHashCost: cost } as AppConfig);

describe('PasswordHasher', () => {
  it('hashes with the configured cost and verifies only the same password', async () => {
    const encoded = await hasher(10).hash('correct horse battery staple');
    expect(encoded).toMatch(/^scrypt\$1024\$8\$1\$[A-Za-z0-9+/=]{24}\$[A-Za-z0-9+/=]{44}$/);
    await expect(hasher(10).verify('correct horse battery staple', encoded)).resolves.toBe(true);
    await expect(hasher(10).verify('correct horse battery stapler', encoded)).resolves.toBe(false);
  });

  it('checks a hash with the parameters it was made with, and says when it should be made again', async () => {
    const older = await hasher(11).hash('correct horse battery staple');
    const current = hasher(10);
    await expect(current.verify('correct horse battery staple', older)).resolves.toBe(true);
    expect(current.needsRehash(older)).toBe(true);
    expect(current.needsRehash(await current.hash('another password'))).toBe(false);
  });

  it('derives nothing when it is made (a replica starts without 32 MiB of scrypt), and the same key as a real check for a missing hash', async () => {
    const derive = jest.spyOn(scryptKdf, 'derive');
    try {
      const made = hasher(10);
      expect(derive).not.toHaveBeenCalled();
      await expect(made.verify('anything at all', undefined)).resolves.toBe(false);
      expect(derive).toHaveBeenCalledTimes(1);
      expect(derive.mock.calls[0].slice(2)).toEqual([1024, 8, 1]);
    } finally {
      derive.mockRestore();
    }
  });

  it('refuses a missing or foreign hash after doing the same work', async () => {
    await expect(hasher(10).verify('anything at all', undefined)).resolves.toBe(false);
    await expect(hasher(10).verify('anything at all', 'bcrypt$2b$10$abc')).resolves.toBe(false);
  });
});
