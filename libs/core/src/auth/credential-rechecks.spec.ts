import { Logger } from '@nestjs/common';
import { CredentialHold, CredentialRechecks } from './credential-rechecks';

function hold(accountId: string, key: string, valid: { now: boolean }, checks: string[], ended: string[]): CredentialHold {
  return {
    accountId,
    key,
    stillValid: async () => {
      checks.push(key);
      return valid.now;
    },
    ended: () => void ended.push(`${accountId}/${key}`),
  };
}

describe('CredentialRechecks', () => {
  afterEach(() => jest.useRealTimers());

  it('checks one credential once for the holds that share it, and ends them when it no longer works', async () => {
    const rechecks = new CredentialRechecks(new Logger('test'), { everyMs: 60_000, concurrency: 2, what: 'stream' });
    const valid = { now: true };
    const checks: string[] = [];
    const ended: string[] = [];
    const tabs = [hold('a', 'token-1', valid, checks, ended), hold('a', 'token-1', valid, checks, ended)];
    const other = hold('b', 'token-2', valid, checks, ended);
    for (const h of [...tabs, other]) rechecks.add(h);
    valid.now = false;
    await rechecks.recheck('a');
    expect(checks).toEqual(['token-1']);
    expect(ended).toEqual(['a/token-1', 'a/token-1']);
    await rechecks.recheck('a');
    expect(checks).toEqual(['token-1']);
    rechecks.stop();
  });

  it('checks each hold again once its period has passed, and keeps it (checked again at the next pass) when the check fails', async () => {
    jest.useFakeTimers();
    const rechecks = new CredentialRechecks(new Logger('test'), { everyMs: 60_000, concurrency: 4, what: 'console' });
    const checks: string[] = [];
    const failing: CredentialHold = {
      accountId: 'a',
      key: 'k',
      stillValid: async () => {
        checks.push('k');
        throw new Error('database down');
      },
      ended: () => undefined,
    };
    jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    rechecks.add(failing);
    await jest.advanceTimersByTimeAsync(55_000);
    expect(checks).toEqual([]);
    await jest.advanceTimersByTimeAsync(5_000);
    expect(checks).toEqual(['k']);
    await jest.advanceTimersByTimeAsync(5_000);
    expect(checks.length).toBeGreaterThan(1);
    rechecks.stop();
  });
});
