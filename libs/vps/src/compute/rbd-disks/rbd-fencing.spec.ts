import { locksOf } from './rbd-fencing';

describe('locksOf (rbd lock ls --format json)', () => {
  const lock = { locker: 'client.4171', address: '127.0.0.1:0/3019475960' };

  it('reads the array Ceph 16 prints, and the object keyed by lock id earlier releases printed', () => {
    expect(locksOf(JSON.stringify([{ id: 'auto 140221', ...lock }]))).toEqual([{ id: 'auto 140221', ...lock }]);
    expect(locksOf(JSON.stringify({ 'auto 140221': lock }))).toEqual([{ id: 'auto 140221', ...lock }]);
  });

  it('finds none in an empty answer', () => {
    expect(locksOf('')).toEqual([]);
    expect(locksOf('[]')).toEqual([]);
    expect(locksOf('{}')).toEqual([]);
  });
});
