import { backoff } from './backoff';

describe('backoff', () => {
  it('doubles from the base and stops at the cap', () => {
    expect([1, 2, 3, 4, 5].map((n) => backoff(n, { base: 500, max: 5000 }))).toEqual([500, 1000, 2000, 4000, 5000]);
    expect(backoff(0, { base: 500, max: 5000 })).toBe(500);
  });

  it('spreads each delay by the jitter either side', () => {
    const options = { base: 30, max: 6 * 3600, jitter: 0.2 };
    expect(backoff(1, { ...options, random: () => 0 })).toBeCloseTo(24);
    expect(backoff(1, { ...options, random: () => 1 })).toBeCloseTo(36);
    expect(backoff(3, { ...options, random: () => 0.5 })).toBeCloseTo(120);
  });
});
