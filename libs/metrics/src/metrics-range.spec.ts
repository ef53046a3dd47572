import { Problem } from '@app/core';
import { chooseStep, MAX_POINTS, metricsRange, metricTypes } from './metrics-range';

const now = new Date('2026-11-26T10:00:00Z');
const at = (iso: string) => Date.parse(iso) / 1000;

function refusal(query: Record<string, string>): { field: string; message: string }[] {
  try {
    metricsRange(query, now);
  } catch (err) {
    expect(err).toBeInstanceOf(Problem);
    expect((err as Problem).getStatus()).toBe(400);
    return (err as Problem).errors ?? [];
  }
  throw new Error(`accepted ${JSON.stringify(query)}`);
}

describe('metrics range', () => {
  it('defaults to the last hour at a 10 s step', () => {
    expect(metricsRange({}, now)).toEqual({ start: at('2026-11-26T09:00:00Z'), end: at('2026-11-26T10:00:00Z'), step: 10 });
  });

  it('chooses a round step that keeps every range up to 30 days at or under 1000 intervals', () => {
    for (const seconds of [3600, 6 * 3600, 86_400, 7 * 86_400, 30 * 86_400]) {
      const step = chooseStep(seconds);
      expect(seconds / step).toBeLessThanOrEqual(MAX_POINTS);
      expect(seconds / step).toBeGreaterThan(MAX_POINTS / 3);
    }
    expect(chooseStep(60)).toBe(10);
    expect(chooseStep(86_400)).toBe(120);
    expect(metricsRange({ start: '2026-10-27T10:00:00Z', end: '2026-11-26T10:00:00Z' }, now).step).toBe(3600);
  });

  it('takes a given step when the range stays at or under 1000 intervals', () => {
    expect(metricsRange({ start: '2026-11-26T09:00:00+01:00', end: '2026-11-26T10:00:00Z', step: '60' }, now)).toEqual({
      start: at('2026-11-26T08:00:00Z'),
      end: at('2026-11-26T10:00:00Z'),
      step: 60,
    });
    expect(refusal({ start: '2026-11-25T10:00:00Z', step: '60' })).toEqual([
      { field: 'step', message: 'gives more than 1000 points for this range; use at least 87' },
    ]);
    expect(refusal({ step: '86401' })[0].field).toBe('step');
  });

  it('puts every point on a multiple of the step, so reads a moment apart ask the same points', () => {
    const later = new Date('2026-11-26T10:00:07.5Z');
    expect(metricsRange({}, later)).toEqual({ start: at('2026-11-26T09:00:00Z'), end: at('2026-11-26T10:00:00Z'), step: 10 });
    expect(metricsRange({ start: '2026-11-26T09:00:59Z', end: '2026-11-26T09:59:01Z', step: '60' }, now)).toEqual({
      start: at('2026-11-26T09:00:00Z'),
      end: at('2026-11-26T09:59:00Z'),
      step: 60,
    });
    expect(metricsRange({ start: '2026-10-27T10:17:00Z', end: '2026-11-26T10:17:00Z' }, later)).toEqual({
      start: at('2026-10-27T10:00:00Z'),
      end: at('2026-11-26T10:00:00Z'),
      step: 3600,
    });
    // A range shorter than its step still has its one point.
    expect(metricsRange({ start: '2026-11-26T09:10:00Z', end: '2026-11-26T09:20:00Z', step: '3600' }, now)).toEqual({
      start: at('2026-11-26T09:00:00Z'),
      end: at('2026-11-26T09:00:00Z'),
      step: 3600,
    });
  });

  it.each([
    [{ start: '2026-11-26T10:00:00Z', end: '2026-11-26T09:00:00Z' }, 'start', 'must be before end'],
    [{ start: '2026-11-26T10:00:00Z', end: '2026-11-26T10:00:00Z' }, 'start', 'must be before end'],
    [{ start: '2026-10-26T09:59:59Z', end: '2026-11-26T10:00:00Z' }, 'start', 'the range may span at most 30 days'],
    [{ end: '2026-11-28T10:00:00Z' }, 'end', 'must not be more than a day in the future'],
    [{ start: '2026-11-26T09:00:00' }, 'start', 'must be an ISO 8601 date-time with a time zone, e.g. 2026-11-26T10:00:00Z'],
    [{ end: '1969-12-31T23:00:00Z', start: '1969-12-31T22:00:00Z' }, 'end', 'must be after 1970-01-01T00:00:00Z'],
    [{ end: '+275760-09-13T00:00:01Z' }, 'end', 'must be an ISO 8601 date-time with a time zone, e.g. 2026-11-26T10:00:00Z'],
  ])('refuses %j on %s', (query, field, message) => {
    expect(refusal(query)).toContainEqual({ field, message });
  });

  it('reads the types in the document order, each once, all three by default', () => {
    expect(metricTypes(undefined)).toEqual(['cpu', 'disk', 'network']);
    expect(metricTypes('network,cpu,cpu')).toEqual(['cpu', 'network']);
  });
});
