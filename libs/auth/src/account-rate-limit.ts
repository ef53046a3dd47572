import { Problem, RateLimitStore } from '@app/core';

/** A per-account budget the route guard cannot count (the account is known only inside the service). */
export async function spendAccountBudget(store: RateLimitStore, key: string, limit: number, windowSeconds: number): Promise<void> {
  if (limit <= 0) return;
  const hit = await store.hit(key, windowSeconds);
  if (hit.count > limit) throw Problem.rateLimited(hit.resetSeconds);
}
