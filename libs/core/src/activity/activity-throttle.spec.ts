import { ActivityThrottle } from './activity-throttle';

describe('ActivityThrottle', () => {
  it('allows max per key per window, then again in the next window', () => {
    const throttle = new ActivityThrottle();
    expect([1, 2, 3].map(() => throttle.allow('k', 2, 60_000, 1000))).toEqual([true, true, false]);
    expect(throttle.allow('other', 2, 60_000, 1000)).toBe(true);
    expect(throttle.allow('k', 2, 60_000, 61_000)).toBe(true);
  });

  it('stays bounded when keys are cycled', () => {
    const throttle = new ActivityThrottle();
    for (let i = 0; i < 20_000; i++) throttle.allow(`key-${i}`, 1);
    expect((throttle as unknown as { windows: Map<string, unknown> }).windows.size).toBeLessThanOrEqual(10_000);
  });
});
