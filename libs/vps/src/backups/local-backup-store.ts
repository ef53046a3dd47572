import { createReadStream, createWriteStream } from 'node:fs';
import { chmod, mkdir, readdir, rename, rm } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { BackupStore, BackupStoreError } from './backup-store';

const PARTIAL = '.partial';

/**
 * The embedded default: files under BACKUP_DIR on the API host. Written to `<key>.partial` and
 * renamed when complete, so a file under the key is always a whole backup. One machine's disk: for
 * anything but a single-host installation set BACKUP_S3_ENDPOINT. Customers' disks: folders 0700 and
 * files 0600, as the mail outbox (folders an earlier version made 0755 are corrected on the next write).
 */
export class LocalBackupStore extends BackupStore {
  constructor(private readonly root: string) {
    super();
  }

  async put(key: string, body: Readable, onProgress?: (bytes: number) => Promise<void> | void): Promise<number> {
    const file = this.fileOf(key);
    await this.privateFolders(dirname(file));
    let bytes = 0;
    body.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
      void onProgress?.(bytes);
    });
    try {
      await pipeline(body, createWriteStream(file + PARTIAL, { mode: 0o600 }));
      await rename(file + PARTIAL, file);
      return bytes;
    } catch (err) {
      await rm(file + PARTIAL, { force: true });
      throw err instanceof BackupStoreError ? err : new BackupStoreError(`The backup could not be written: ${(err as Error).message}`);
    }
  }

  get(key: string): Promise<Readable> {
    const stream = createReadStream(this.fileOf(key));
    return new Promise((resolve, reject) => {
      stream.once('open', () => resolve(stream));
      stream.once('error', (err) => reject(new BackupStoreError(`The backup could not be read: ${err.message}`)));
    });
  }

  async remove(key: string): Promise<void> {
    await rm(this.fileOf(key), { force: true });
  }

  async abandon(key: string): Promise<void> {
    await rm(this.fileOf(key) + PARTIAL, { force: true });
    await this.remove(key);
  }

  async list(prefix: string): Promise<string[]> {
    const dir = this.fileOf(prefix.replace(/\/+$/, ''));
    const names = await readdir(dir).catch(() => [] as string[]);
    return names.map((name) => `${prefix.replace(/\/+$/, '')}/${name}`);
  }

  /** The key's folders below the root (`vps`, `vps/<service>`) made, or made private; an existing root is left as the operator set it. */
  private async privateFolders(dir: string): Promise<void> {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const below = relative(this.root, dir).split('/');
    for (let i = 1; i <= below.length; i++) await chmod(join(this.root, ...below.slice(0, i)), 0o700);
  }

  private fileOf(key: string): string {
    if (key.split('/').some((part) => part === '..' || part === '')) throw new BackupStoreError(`Not a backup key: ${key}`);
    return join(this.root, key);
  }
}
