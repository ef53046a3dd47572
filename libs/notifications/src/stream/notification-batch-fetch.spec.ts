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

  it('logs a failed fetch and keeps delivering the next bursts', async () => {
    const { repository, calls } = fakeRepository();
    const delivered: string[] = [];
    const bursts = new NotificationBatchFetch(repository, (accountId) => delivered.push(accountId), logger);
    bursts.add('a', 'n1');
    await turn();
    calls[0].fail(new Error('connection lost'));
    await turn();
    expect(warnings).toContain('Could not deliver notifications: connection lost');
    bursts.add('b', null);
    await turn();
    calls[1].answer();
    await turn();
    expect(delivered).toEqual(['b']);
  });
});
