import { ActivityThrottle, Admission } from './activity-throttle';

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

  it('past the cap, counts the failures and their distinct addresses in one summary per window', () => {
    const throttle = new ActivityThrottle();
    const admitted = ['a', 'a', 'a', 'b', 'c', 'b'].map((ip) => throttle.admit('acct', 2, ip, 60_000, 1000));
    expect(admitted.slice(0, 2)).toEqual([{ record: true }, { record: true }]);
    const summaries = admitted.slice(2).map((a) => (a.record ? null : a.summary));
    expect(new Set(summaries).size).toBe(1);
    expect(summaries[0]!.details(60_000)).toEqual({
      failures: 4,
      distinctIps: 3,
      ips: ['a', 'b', 'c'],
      windowStart: new Date(1000).toISOString(),
      windowEnd: new Date(61_000).toISOString(),
    });
    const next = throttle.admit('acct', 2, 'd', 60_000, 61_000);
    expect(next).toEqual({ record: true });
  });

  it('keeps a summary bounded when addresses are cycled', () => {
    const throttle = new ActivityThrottle();
    let last: Admission = { record: true };
    for (let i = 0; i < 5000; i++) last = throttle.admit('acct', 0, `10.0.${i >> 8}.${i & 255}`, 60_000, 1000);
    if (last.record) throw new Error('expected the summary');
    const details = last.summary.details(60_000);
    expect(details.failures).toBe(5000);
    expect(details.distinctIps).toBe(1000);
    expect(details.ips).toHaveLength(20);
  });
});
