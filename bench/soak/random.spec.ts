import { Random } from './random';

describe('Random', () => {
  it('gives the same sequence for the same seed, another for another seed', () => {
    const draw = (seed: number) =>
      Array.from(
        { length: 5 },
        (
          (r) => () =>
            r.int(0, 1_000_000)
        )(new Random(seed)),
      );
    expect(draw(42)).toEqual(draw(42));
    expect(draw(42)).not.toEqual(draw(43));
  });

  it('forks generators that depend on the seed and the salt only', () => {
    const a = new Random(7).fork(1);
    const b = new Random(7).fork(1);
    expect([a.next(), a.next()]).toEqual([b.next(), b.next()]);
    expect(new Random(7).fork(2).next()).not.toBe(new Random(7).fork(1).next());
  });

  it('keeps integers within their bounds and picks by weight, never a weight of 0', () => {
    const random = new Random(1);
    const counts = { often: 0, rarely: 0, never: 0 };
    for (let i = 0; i < 10_000; i++) {
      const n = random.int(3, 5);
      expect(n >= 3 && n <= 5).toBe(true);
      counts[random.weighted({ often: 9, rarely: 1, never: 0 })]++;
    }
    expect(counts.never).toBe(0);
    expect(counts.often / counts.rarely).toBeGreaterThan(6);
    expect(counts.often / counts.rarely).toBeLessThan(13);
  });
});
