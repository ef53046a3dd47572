import { chosenKinds, FAULT_WEIGHTS, FaultSchedule } from './faults';
import { Random } from './random';
import type { SoakWorld } from './world';

describe('FaultSchedule.explains', () => {
  const schedule = () => {
    const faults = new FaultSchedule({} as SoakWorld, new Random(1), 0, true, () => undefined);
    faults.log.push({ kind: 'api-1-kill', at: 10_000, endedAt: 14_000, detail: '' });
    faults.log.push({ kind: 'postgres-restart', at: 30_000, endedAt: 32_000, detail: '' });
    return faults;
  };

  it('explains a 502 while a replica is down and just after, not long after', () => {
    expect(
      schedule()
        .explains(502, 12_000)
        .map((f) => f.kind),
    ).toEqual(['api-1-kill']);
    expect(schedule().explains(502, 15_500)).toHaveLength(1);
    expect(schedule().explains(502, 20_000)).toEqual([]);
  });

  it('explains only the statuses its fault can cause', () => {
    expect(schedule().explains(500, 12_000)).toEqual([]);
    expect(
      schedule()
        .explains(503, 31_000)
        .map((f) => f.kind),
    ).toEqual(['postgres-restart']);
  });

  it('explains what happens during a fault still going on', () => {
    const faults = schedule();
    faults.log.push({ kind: 'libvirtd-freeze', at: 50_000, detail: '' });
    expect(faults.explains(504, 90_000).map((f) => f.kind)).toEqual(['libvirtd-freeze']);
  });

  it('explains a 503 whose connection wait overlapped a stall the database probe saw, not a 500, nor a 503 long after', () => {
    const faults = schedule();
    faults.observed.push({ kind: 'database-stall', at: 100_000, endedAt: 102_500, detail: "the probe's SELECT 1 took 2500 ms" });
    expect(faults.explains(503, 98_000, 3_001).map((f) => f.kind)).toEqual(['database-stall']);
    expect(faults.explains(500, 101_000, 200)).toEqual([]);
    expect(faults.explains(503, 110_000, 3_001)).toEqual([]);
    expect(faults.log).toHaveLength(2);
  });
});

describe('chosenKinds', () => {
  it('keeps every kind when none is named, and only the named ones with their weights', () => {
    expect(chosenKinds(undefined)).toEqual(FAULT_WEIGHTS);
    expect(Object.keys(FAULT_WEIGHTS)).toContain('api-clock-step');
    expect(chosenKinds('postgres-restart, redis-kill')).toEqual({ 'postgres-restart': 2, 'redis-kill': 1 });
  });

  it('refuses a name that is no fault', () => {
    expect(() => chosenKinds('postgres-restart,disk-full')).toThrow('unknown fault disk-full');
  });
});

describe('FaultSchedule.explains a request in flight', () => {
  it('explains a request that began before the fault and was cut by it, not one that ended before', () => {
    const faults = new FaultSchedule({} as SoakWorld, new Random(1), 0, true, () => undefined);
    faults.log.push({ kind: 'postgres-restart', at: 309_012, endedAt: 311_900, detail: '' });
    expect(faults.explains(503, 307_966, 3_956).map((f) => f.kind)).toEqual(['postgres-restart']);
    expect(faults.explains(503, 300_000, 2_000)).toEqual([]);
    expect(faults.explains(500, 307_966, 3_956)).toEqual([]);
  });
});
