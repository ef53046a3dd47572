import { nextBackupSlot } from './backup-slot';

const day = { startHour: 0, hours: 24 };

describe('nextBackupSlot', () => {
  it('is the same minute every day for one VPS, strictly after now, within a day', () => {
    const now = new Date('2026-11-26T12:00:00Z');
    const slot = nextBackupSlot('a1b2', now, day);
    expect(slot.getTime()).toBeGreaterThan(now.getTime());
    expect(slot.getTime() - now.getTime()).toBeLessThanOrEqual(86_400_000);
    const later = nextBackupSlot('a1b2', slot, day);
    expect(later.getTime() - slot.getTime()).toBe(86_400_000);
  });

  it('stays inside the window, also one past midnight', () => {
    const now = new Date('2026-11-26T12:00:00Z');
    for (const id of ['a', 'b', 'c', 'd', 'e', 'f', 'g']) {
      const hour = nextBackupSlot(id, now, { startHour: 1, hours: 4 }).getUTCHours();
      expect(hour).toBeGreaterThanOrEqual(1);
      expect(hour).toBeLessThan(5);
      const late = nextBackupSlot(id, now, { startHour: 22, hours: 4 }).getUTCHours();
      expect([22, 23, 0, 1]).toContain(late);
    }
  });

  it('spreads VPSes over the window', () => {
    const now = new Date('2026-11-26T00:00:00Z');
    const hours = new Set(Array.from({ length: 200 }, (_, i) => nextBackupSlot(`vps-${i}`, now, day).getUTCHours()));
    expect(hours.size).toBeGreaterThan(20);
  });
});
