import { holdLease, LeaseStore } from './lease-holder';
import { WorkSlots } from './work-slots';

/** A lease store in memory: one holder per key, as a repository's UPDATE ... WHERE lease_until < now() does. */
class MemoryLeases implements LeaseStore<string, string> {
  readonly held = new Set<string>();
  readonly calls: string[] = [];

  async tryTake(key: string): Promise<string | null> {
    if (this.held.has(key)) return null;
    this.held.add(key);
    return `work of ${key}`;
  }

  async renew(key: string): Promise<void> {
    this.calls.push(`renew ${key}`);
  }

  async release(key: string, error: string | null): Promise<void> {
    this.held.delete(key);
    this.calls.push(`release ${key} ${error}`);
  }
}

describe('holdLease', () => {
  afterEach(() => jest.useRealTimers());

  it('runs the work under the lease and renews it every third of its length while it runs', async () => {
    jest.useFakeTimers();
    const store = new MemoryLeases();
    let finish: () => void = () => undefined;
    const held = holdLease(store, 'a', 30, (work) => new Promise<string>((resolve) => (finish = () => resolve(work))));
    await Promise.resolve();
    await Promise.resolve();
    expect(await holdLease(store, 'a', 30, async () => 'second')).toEqual({ taken: false });
    jest.advanceTimersByTime(25_000);
    expect(store.calls).toEqual(['renew a', 'renew a']);
    finish();
    expect(await held).toEqual({ taken: true, result: 'work of a' });
    jest.advanceTimersByTime(60_000);
    expect(store.calls).toEqual(['renew a', 'renew a']);
  });

  it('gives the lease back with the error when the work throws, and throws it on', async () => {
    const store = new MemoryLeases();
    await expect(
      holdLease(store, 'b', 30, async () => {
        throw new Error('gateway down');
      }),
    ).rejects.toThrow('gateway down');
    expect(store.calls).toEqual(['release b gateway down']);
    expect(store.held.has('b')).toBe(false);
  });
});

describe('WorkSlots', () => {
  it('hands a freed slot to the next waiter, and none once stopping', async () => {
    let stopping = false;
    const slots = new WorkSlots(
      () => 1,
      () => stopping,
      'stopping',
    );
    await slots.take();
    let second = false;
    const waiting = slots.take().then(() => (second = true));
    await Promise.resolve();
    expect(second).toBe(false);
    slots.free();
    await waiting;
    expect(second).toBe(true);
    const third = slots.take();
    stopping = true;
    slots.wakeAll();
    await expect(third).rejects.toThrow('stopping');
    await expect(slots.take()).rejects.toThrow('stopping');
  });
});
