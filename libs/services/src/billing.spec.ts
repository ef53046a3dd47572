import { addMonths, nextDueDate, priceTimes } from './billing';

describe('billing dates', () => {
  const from = new Date('2026-01-31T10:20:30.000Z');

  it('adds months in UTC and clamps to the end of shorter months', () => {
    expect(addMonths(from, 1).toISOString()).toBe('2026-02-28T10:20:30.000Z');
    expect(addMonths(new Date('2028-01-31T00:00:00Z'), 1).toISOString()).toBe('2028-02-29T00:00:00.000Z');
    expect(addMonths(from, 3).toISOString()).toBe('2026-04-30T10:20:30.000Z');
    expect(addMonths(from, 12).toISOString()).toBe('2027-01-31T10:20:30.000Z');
    expect(addMonths(new Date('2026-11-15T00:00:00Z'), 2).toISOString()).toBe('2027-01-15T00:00:00.000Z');
  });

  it.each([
    ['monthly', '2026-02-28T10:20:30.000Z'],
    ['quarterly', '2026-04-30T10:20:30.000Z'],
    ['semi_annually', '2026-07-31T10:20:30.000Z'],
    ['annually', '2027-01-31T10:20:30.000Z'],
    ['biennially', '2028-01-31T10:20:30.000Z'],
    ['triennially', '2029-01-31T10:20:30.000Z'],
    ['hourly', '2026-02-01T00:00:00.000Z'],
  ] as const)('an active %s service is next due at %s', (cycle, due) => {
    expect(nextDueDate(cycle, 'active', from)?.toISOString()).toBe(due);
  });

  it('renews an old active service on its next anniversary after now', () => {
    const now = new Date('2026-06-15T00:00:00.000Z');
    expect(nextDueDate('monthly', 'active', from, now)?.toISOString()).toBe('2026-06-30T10:20:30.000Z');
    expect(nextDueDate('quarterly', 'active', from, now)?.toISOString()).toBe('2026-07-31T10:20:30.000Z');
    expect(nextDueDate('annually', 'active', from, now)?.toISOString()).toBe('2027-01-31T10:20:30.000Z');
    expect(nextDueDate('hourly', 'active', from, now)?.toISOString()).toBe('2026-07-01T00:00:00.000Z');
  });

  it('has no due date when finished or bought once; pending is due now; suspended is overdue', () => {
    expect(nextDueDate('monthly', 'cancelled', from)).toBeNull();
    expect(nextDueDate('monthly', 'terminated', from)).toBeNull();
    expect(nextDueDate('one_time', 'active', from)).toBeNull();
    expect(nextDueDate('monthly', 'pending', from)).toEqual(from);
    expect(nextDueDate('monthly', 'suspended', from)!.getTime()).toBeLessThan(from.getTime());
  });
});

describe('priceTimes', () => {
  it('multiplies a four-decimal price exactly', () => {
    expect(priceTimes('0.0440', 100)).toBe('4.4000');
    expect(priceTimes('0.0001', 10)).toBe('0.0010');
    expect(priceTimes('3.99', 1)).toBe('3.9900');
    expect(priceTimes('0.0440', 10240)).toBe('450.5600');
    expect(priceTimes('12', 3)).toBe('36.0000');
  });
});
