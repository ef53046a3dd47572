import type { BillingCycle } from '@app/products';
import type { ServiceStatus } from './service.types';

const MONTHS: Partial<Record<BillingCycle, number>> = {
  monthly: 1,
  quarterly: 3,
  semi_annually: 6,
  annually: 12,
  biennially: 24,
  triennially: 36,
};

/** Adds calendar months in UTC, clamping to the month's last day (31 Jan + 1 month = 28/29 Feb). */
export function addMonths(from: Date, months: number): Date {
  const target = new Date(Date.UTC(from.getUTCFullYear(), from.getUTCMonth() + months, 1));
  const lastDay = new Date(Date.UTC(target.getUTCFullYear(), target.getUTCMonth() + 1, 0)).getUTCDate();
  target.setUTCDate(Math.min(from.getUTCDate(), lastDay));
  target.setUTCHours(from.getUTCHours(), from.getUTCMinutes(), from.getUTCSeconds(), from.getUTCMilliseconds());
  return target;
}

const OVERDUE_DAYS_WHEN_SUSPENDED = 14;

/**
 * When the next invoice of a service created at `createdAt` is due, seen at `now`. None for a
 * finished service or a one-time purchase; hourly usage is invoiced on the first of the next
 * month; an unpaid (pending) order is due at once; a suspended service is overdue (suspension
 * follows non-payment); an active one renews on its anniversaries.
 */
export function nextDueDate(cycle: BillingCycle, status: ServiceStatus, createdAt: Date, now: Date = createdAt): Date | null {
  if (status === 'cancelled' || status === 'terminated' || cycle === 'one_time') return null;
  if (status === 'pending') return now;
  if (status === 'suspended') return new Date(now.getTime() - OVERDUE_DAYS_WHEN_SUSPENDED * 86_400_000);
  if (cycle === 'hourly') return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
  const months = MONTHS[cycle]!;
  // Counted from createdAt each time, so month-end clamping does not drift (31 Jan, 28 Feb, 31 Mar).
  let periods = 1;
  while (addMonths(createdAt, periods * months) <= now) periods++;
  return addMonths(createdAt, periods * months);
}

/** A unit price (numeric(12,4) as a decimal string) times a whole quantity, exactly, as the same kind of string. */
export function priceTimes(unitPrice: string, quantity: number): string {
  const [whole, fraction = ''] = unitPrice.split('.');
  const tenThousandths = BigInt(whole + fraction.padEnd(4, '0').slice(0, 4)) * BigInt(quantity);
  const digits = tenThousandths.toString().padStart(5, '0');
  return `${digits.slice(0, -4)}.${digits.slice(-4)}`;
}
