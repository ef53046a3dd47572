import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { AppConfig } from '@app/core';
import { LocalBlobStorage } from './local-blob-storage';

describe('LocalBlobStorage.receive', () => {
  let dataDir: string;
  let storage: LocalBlobStorage;
  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'local-blob-'));
    storage = new LocalBlobStorage({ dataDir } as AppConfig, undefined as never);
  });
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  const filesOf = (account: string) => readdirSync(join(dataDir, 'attachments', account));
  const settle = () => new Promise((resolve) => setTimeout(resolve, 50));

  it('stores an upload within the limit under its key, and only once', async () => {
    expect(await storage.receive('acct/one', Readable.from([Buffer.from('12345')]), 5)).toBe('stored');
    expect(await storage.receive('acct/one', Readable.from([Buffer.from('6')]), 5)).toBe('exists');
    await settle();
    expect(filesOf('acct')).toEqual(['one']);
    expect(await storage.size('acct/one')).toBe(5);
  });

  it('leaves nothing behind when the first chunk is already over the limit', async () => {
    for (let i = 0; i < 20; i++) {
      expect(await storage.receive(`acct/f${i}`, Readable.from([Buffer.alloc(11, 'x')]), 10)).toBe('too_large');
    }
    await settle();
    expect(filesOf('acct')).toEqual([]);
  });
});
