/**
 * The SQL side of a lease on one row of an area's table, written by that area's repository on its
 * own columns. `tryTake` takes the lease when nobody holds it or its holder's has run out (a holder
 * that crashed: the next one resumes its work); what it answers is the work, null when not taken.
 */
export interface LeaseStore<K, W> {
  tryTake(key: K, seconds: number): Promise<W | null>;
  /** Extends the lease while the work runs; absent when the work's own statements renew it or the lease outlasts it. */
  renew?(key: K, seconds: number): Promise<void>;
  /** Gives the lease back before the work is done (it failed and will be retried, or the process stops), recording why. */
  release(key: K, error: string | null): Promise<void>;
}

/** A lease this process holds, renewed every third of its length while the work runs (when its store renews). */
export class HeldLease<K, W> {
  private renewal: NodeJS.Timeout | undefined;

  constructor(
    private readonly store: LeaseStore<K, W>,
    readonly key: K,
    readonly work: W,
    seconds: number,
  ) {
    if (!store.renew) return;
    const renew = store.renew.bind(store);
    this.renewal = setInterval(() => void renew(key, seconds).catch(() => undefined), (seconds * 1000) / 3);
    this.renewal.unref();
  }

  /** The work ended: no more renewals (its last statement let go of the lease, or it expires). */
  end(): void {
    clearInterval(this.renewal);
    this.renewal = undefined;
  }

  /** Stops renewing, then gives the lease back. */
  async release(error: string | null = null): Promise<void> {
    this.end();
    await this.store.release(this.key, error);
  }
}

export type Held<T> = { taken: false } | { taken: true; result: T };

export async function takeLease<K, W>(store: LeaseStore<K, W>, key: K, seconds: number): Promise<HeldLease<K, W> | null> {
  const work = await store.tryTake(key, seconds);
  return work === null ? null : new HeldLease(store, key, work, seconds);
}

/**
 * Runs `work` under the lease of `key`, if it can be taken. Work that ends well lets go of the lease
 * in its own last statement (its outcome and the release commit together); work that throws gives
 * it back with its error, and the error goes on to the caller (the job queue retries it).
 */
export async function holdLease<K, W, T>(
  store: LeaseStore<K, W>,
  key: K,
  seconds: number,
  work: (taken: W) => Promise<T>,
): Promise<Held<T>> {
  const lease = await takeLease(store, key, seconds);
  if (!lease) return { taken: false };
  try {
    return { taken: true, result: await work(lease.work) };
  } catch (err) {
    await lease.release(err instanceof Error ? err.message : String(err));
    throw err;
  } finally {
    lease.end();
  }
}
