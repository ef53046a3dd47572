import type { Logger } from '@nestjs/common';
import type { AccountNews, NotificationsRepository } from '../notifications.repository';
import { NotificationBatchFetch } from './notification-batch-fetch';

/** A repository whose `news` answers when the test says so, recording what each call asked for. */
function fakeRepository() {
  const calls: { accounts: string[]; ids: string[]; answer: (news?: Map<string, AccountNews>) => void; fail: (err: Error) => void }[] = [];
  const repository = {
    news: (accounts: string[], ids: string[]) =>
      new Promise<Map<string, AccountNews>>((resolve, reject) => {
        calls.push({
          accounts,
          ids,
          answer: (news) => resolve(news ?? new Map(accounts.map((a) => [a, { unread: ids.length, notifications: [] }]))),
          fail: reject,
        });
      }),
  } as unknown as NotificationsRepository;
  return { repository, calls };
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

describe('NotificationBatchFetch', () => {
  const warnings: string[] = [];
  const logger = { warn: (message: string) => warnings.push(message) } as unknown as Logger;

  it('fetches the announcements of one turn in one call, and those heard meanwhile in the next, in order', async () => {
    const { repository, calls } = fakeRepository();
    const delivered: string[] = [];
    const bursts = new NotificationBatchFetch(repository, (accountId, news) => delivered.push(`${accountId}:${news.unread}`), logger);
    bursts.add('a', 'n1');
    bursts.add('b', null);
    bursts.add('a', 'n2');
    await turn();
    expect(calls.map(({ accounts, ids }) => ({ accounts, ids }))).toEqual([{ accounts: ['a', 'b'], ids: ['n1', 'n2'] }]);

    // Heard while the first burst is being fetched: waits for it, then goes in one call.
    bursts.add('c', 'n3');
    bursts.add('b', 'n4');
    await turn();
    expect(calls).toHaveLength(1);
    calls[0].answer();
    await turn();
    expect(delivered).toEqual(['a:2', 'b:2']);
    expect(calls.map(({ accounts, ids }) => ({ accounts, ids }))[1]).toEqual({ accounts: ['c', 'b'], ids: ['n3', 'n4'] });
    calls[1].answer();
    await turn();
    expect(delivered).toEqual(['a:2', 'b:2', 'c:2', 'b:2']);
  });

  const retries = { tries: 3, baseMs: 5, maxMs: 5 };
  const until = async (done: () => boolean) => {
    for (let i = 0; i < 200 && !done(); i++) await new Promise((resolve) => setTimeout(resolve, 2));
  };

  it('fetches a failed burst again after a pause, with what was heard meanwhile, and delivers it', async () => {
    const { repository, calls } = fakeRepository();
    const delivered: string[] = [];
    const bursts = new NotificationBatchFetch(
      repository,
      (accountId, news) => delivered.push(`${accountId}:${news.unread}`),
      logger,
      retries,
    );
    bursts.add('a', 'n1');
    await turn();
    calls[0].fail(new Error('canceling statement due to statement timeout'));
    bursts.add('b', 'n2');
    await until(() => calls.length === 2);
    expect(warnings).toContain('Could not deliver notifications: canceling statement due to statement timeout (fetched again shortly)');
    expect(calls.map(({ accounts, ids }) => ({ accounts, ids }))[1]).toEqual({ accounts: ['b', 'a'], ids: ['n2', 'n1'] });
    calls[1].answer();
    await turn();
    expect(delivered).toEqual(['b:2', 'a:2']);
  });

  it('gives an account up after its tries, logs it, and keeps delivering the next bursts', async () => {
    const { repository, calls } = fakeRepository();
    const delivered: string[] = [];
    const bursts = new NotificationBatchFetch(repository, (accountId) => delivered.push(accountId), logger, retries);
    bursts.add('a', 'n1');
    for (let n = 1; n <= 3; n++) {
      await until(() => calls.length === n);
      calls[n - 1].fail(new Error('connection lost'));
    }
    await until(() => warnings.includes('Could not deliver notifications: connection lost (given up)'));
    expect(warnings).toContain('Could not deliver notifications: connection lost (given up)');
    bursts.add('b', null);
    await until(() => calls.length === 4);
    expect(calls[3].accounts).toEqual(['b']);
    calls[3].answer();
    await turn();
    expect(delivered).toEqual(['b']);
  });

  it('fetches nothing after stop, not even a burst waiting to be tried again', async () => {
    const { repository, calls } = fakeRepository();
    const bursts = new NotificationBatchFetch(repository, () => undefined, logger, { tries: 3, baseMs: 60_000, maxMs: 60_000 });
    bursts.add('a', 'n1');
    await turn();
    calls[0].fail(new Error('connection lost'));
    await turn();
    bursts.stop();
    bursts.add('b', null);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(calls).toHaveLength(1);
  });
});
