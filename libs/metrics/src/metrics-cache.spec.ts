import type { AppConfig } from '@app/core';
import { MAX_CACHED_READS, MetricsCache } from './metrics-cache';
import type { MetricsSeries } from './source/metrics-source';

const cacheFor = (cacheSeconds: number) => new MetricsCache({ metrics: { cacheSeconds } } as AppConfig);

/** A load that answers when told to, counting its calls. */
function deferredLoads() {
  const pending: { resolve: (series: MetricsSeries) => void; reject: (err: Error) => void }[] = [];
  const load = jest.fn(() => new Promise<MetricsSeries>((resolve, reject) => pending.push({ resolve, reject })));
  return { load, pending };
}

describe('MetricsCache', () => {
  beforeEach(() => jest.useFakeTimers({ now: new Date('2026-11-26T10:00:00Z') }));
  afterEach(() => jest.useRealTimers());

  it('gives reads made while the query runs its answer, and keeps it for the configured seconds after', async () => {
    const cache = cacheFor(5);
    const { load, pending } = deferredLoads();
    const first = cache.read('a', load);
    const second = cache.read('a', load);
    expect(load).toHaveBeenCalledTimes(1);
    const series = { cpu: [[1, 2]] } as MetricsSeries;
    pending[0].resolve(series);
    expect(await first).toBe(series);
    expect(await second).toBe(series);

    jest.advanceTimersByTime(4999);
    expect(await cache.read('a', load)).toBe(series);
    expect(load).toHaveBeenCalledTimes(1);
    jest.advanceTimersByTime(1);
    void cache.read('a', load);
    expect(load).toHaveBeenCalledTimes(2);
  });

  it('asks again for another key', () => {
    const cache = cacheFor(5);
    const { load } = deferredLoads();
    void cache.read('a', load);
    void cache.read('b', load);
    expect(load).toHaveBeenCalledTimes(2);
  });

  it('keeps no failure: the reads waiting share it, the next one asks again', async () => {
    const cache = cacheFor(5);
    const { load, pending } = deferredLoads();
    const waiting = [cache.read('a', load), cache.read('a', load)];
    pending[0].reject(new Error('metrics_unavailable'));
    for (const read of waiting) await expect(read).rejects.toThrow('metrics_unavailable');
    void cache.read('a', load);
    expect(load).toHaveBeenCalledTimes(2);
  });

  it('asks every time when METRICS_CACHE_SECONDS is 0', async () => {
    const cache = cacheFor(0);
    const load = jest.fn(async () => ({}) as MetricsSeries);
    await cache.read('a', load);
    await cache.read('a', load);
    expect(load).toHaveBeenCalledTimes(2);
  });

  it(`holds at most ${MAX_CACHED_READS} answers, dropping the oldest`, async () => {
    const cache = cacheFor(60);
    const load = jest.fn(async () => ({}) as MetricsSeries);
    for (let i = 0; i <= MAX_CACHED_READS; i++) await cache.read(`k${i}`, load);
    await cache.read(`k${MAX_CACHED_READS}`, load);
    expect(load).toHaveBeenCalledTimes(MAX_CACHED_READS + 1);
    await cache.read('k0', load);
    expect(load).toHaveBeenCalledTimes(MAX_CACHED_READS + 2);
  });
});
