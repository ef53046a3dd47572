import type { AppConfig } from '../config/app-config';
import { MemoryRateLimitStore } from './memory-rate-limit.store';
import { PasswordFailures } from './password-failures';

describe('PasswordFailures', () => {
  const store = new MemoryRateLimitStore();
  const config = { rateLimit: { loginPerMinute: 3, loginEmailFailuresPerMinute: 5 } } as AppConfig;
  const failures = new PasswordFailures(store, config);
  afterAll(() => store.close());

  it('refuses an IP once its failures for the email reach the limit, whatever the case of the email', async () => {
    for (let i = 0; i < 3; i++)
      await failures.check('Ada@Example.test', '192.0.2.1').then(() => failures.failed('ada@example.test', '192.0.2.1'));
    await expect(failures.check('ada@example.test', '192.0.2.1')).rejects.toMatchObject({ code: 'rate_limited' });
    await expect(failures.check('ada@example.test', '192.0.2.2')).resolves.toBeUndefined();
    await expect(failures.check('bob@example.test', '192.0.2.1')).resolves.toBeUndefined();
  });

  it('past the per-email ceiling, an IP that already failed is refused and a new one gets one try', async () => {
    const email = 'grace@example.test';
    for (let i = 1; i <= 5; i++) await failures.failed(email, `198.51.100.${i}`);
    await expect(failures.check(email, '198.51.100.1')).rejects.toMatchObject({ code: 'rate_limited' });
    expect(await failures.remaining(email, '203.0.113.9')).toMatchObject({ limit: 1, remaining: 1 });
  });
});
