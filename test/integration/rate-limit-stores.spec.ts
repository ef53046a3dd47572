import { randomUUID } from 'node:crypto';
import { MemoryRateLimitStore } from '../../libs/core/src/rate-limit/memory-rate-limit.store';
import { RedisRateLimitStore } from '../../libs/core/src/rate-limit/redis-rate-limit.store';
import { RateLimitStore } from '../../libs/core/src/rate-limit/rate-limit.store';
import { waitForOrFail } from '../support/wait-for';

/** A bucket of accepted requests takes back the hit of a refused one: release undoes one hit, never below 0. */
function releaseBehaviour(name: string, make: () => RateLimitStore) {
  describe(name, () => {
    let store: RateLimitStore;
    beforeAll(async () => {
      store = make();
      // Redis fails open while it connects (a hit counts 0): wait until a hit is counted.
      await waitForOrFail(
        () => store.hit(`test:warm-up:${randomUUID()}`, 1),
        (hit) => hit.count === 1,
        10_000,
        () => `${name} never counted a hit`,
      );
    });
    afterAll(() => store.close());

    it('release takes back one hit of the open window', async () => {
      const key = `test:${randomUUID()}`;
      await store.hit(key, 60);
      await store.hit(key, 60);
      await store.release(key);
      expect((await store.peek(key, 60)).count).toBe(1);
      expect((await store.hit(key, 60)).count).toBe(2);
    });

    it('release of a key without hits does nothing, and never goes below 0', async () => {
      const key = `test:${randomUUID()}`;
      await store.release(key);
      expect((await store.peek(key, 60)).count).toBe(0);
      await store.hit(key, 60);
      await store.release(key);
      await store.release(key);
      expect((await store.hit(key, 60)).count).toBe(1);
    });
  });
}

releaseBehaviour('MemoryRateLimitStore', () => new MemoryRateLimitStore());
// Redis on this machine (as the fault scenarios use it); TEST_REDIS_URL points elsewhere.
releaseBehaviour('RedisRateLimitStore', () => new RedisRateLimitStore(process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379'));
