import { GroupedCompletions } from './grouped-completions';

describe('GroupedCompletions', () => {
  it('sends the first completion at once and groups those that come while it is answered', async () => {
    const statements: string[][] = [];
    let answer: () => void = () => undefined;
    const grouped = new GroupedCompletions((_name, ids) => {
      statements.push([...ids]);
      return new Promise<void>((resolve) => (answer = resolve));
    });
    const first = grouped.complete('q', 'a');
    const later = ['b', 'c', 'd'].map((id) => grouped.complete('q', id));
    expect(statements).toEqual([['a']]);
    answer();
    await first;
    await new Promise((resolve) => setImmediate(resolve));
    expect(statements).toEqual([['a'], ['b', 'c', 'd']]);
    answer();
    await Promise.all(later);
  });

  it('keeps job names apart', async () => {
    const statements: Array<[string, string[]]> = [];
    const grouped = new GroupedCompletions(async (name, ids) => void statements.push([name, [...ids]]));
    await Promise.all([grouped.complete('q', 'a'), grouped.complete('r', 'b')]);
    expect(statements).toEqual([
      ['q', ['a']],
      ['r', ['b']],
    ]);
  });

  it('rejects every completion of a statement that failed, and the next statement still goes', async () => {
    let calls = 0;
    let answer: () => void = () => undefined;
    const grouped = new GroupedCompletions(() => {
      calls++;
      if (calls === 2) return Promise.reject(new Error('connection lost'));
      return new Promise<void>((resolve) => (answer = resolve));
    });
    const first = grouped.complete('q', 'a');
    const failed = [grouped.complete('q', 'b'), grouped.complete('q', 'c')];
    answer();
    await first;
    await expect(Promise.all(failed)).rejects.toThrow('connection lost');
    const after = grouped.complete('q', 'd');
    answer();
    await expect(after).resolves.toBeUndefined();
    expect(calls).toBe(3);
  });
});
