import { createHash } from 'node:crypto';

/**
 * When a VPS's daily backup is due: a minute of its own inside the window (UTC hours), the same
 * every day and spread evenly over the window by a hash of its id, so the VPSes of one hypervisor
 * are not all copied at once. The first slot strictly after `now`.
 */
export function nextBackupSlot(serviceId: string, now: Date, window: { startHour: number; hours: number }): Date {
  const minutes = Math.max(1, window.hours * 60);
  const offset = createHash('sha256').update(serviceId).digest().readUInt32BE(0) % minutes;
  const day = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  let slot = day + (window.startHour * 60 + offset) * 60_000;
  while (slot <= now.getTime()) slot += 86_400_000;
  // A window reaching past midnight: yesterday's slot may still be ahead.
  if (slot - 86_400_000 > now.getTime()) slot -= 86_400_000;
  return new Date(slot);
}
