import { createReadStream, createWriteStream } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { link, mkdir, open, rm, stat, unlink, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Injectable } from '@nestjs/common';
import { AppConfig, UrlSigner } from '@app/core';
import { BlobStorage, DownloadSpec, PresignedUpload, UploadSpec } from './blob-storage';

export interface UploadClaims extends Record<string, string | number> {
  k: string;
  s: number;
  t: string;
}

export interface DownloadClaims extends Record<string, string | number> {
  k: string;
  n: string;
  t: string;
}

const SAFE_KEY = /^[a-z0-9-]+\/[a-z0-9-]+$/;

/** Files under DATA_DIR/attachments; the API itself serves the signed upload and download URLs. */
@Injectable()
export class LocalBlobStorage extends BlobStorage {
  constructor(
    private readonly config: AppConfig,
    private readonly signer: UrlSigner,
  ) {
    super();
  }

  async presignUpload(spec: UploadSpec): Promise<PresignedUpload> {
    const token = this.signer.sign('upload', { k: spec.key, s: spec.size, t: spec.contentType }, spec.expiresAt);
    return { url: `${this.config.publicUrl}/blobs/uploads/${token}`, method: 'PUT', headers: { 'Content-Type': spec.contentType } };
  }

  async presignDownload(spec: DownloadSpec): Promise<string> {
    const token = this.signer.sign('download', { k: spec.key, n: spec.filename, t: spec.contentType }, spec.expiresAt);
    return `${this.config.publicUrl}/blobs/downloads/${token}`;
  }

  async size(key: string): Promise<number | null> {
    try {
      return (await stat(this.path(key))).size;
    } catch {
      return null;
    }
  }

  async put(key: string, body: Buffer | Readable, _contentType: string): Promise<void> {
    await mkdir(dirname(this.path(key)), { recursive: true });
    if (Buffer.isBuffer(body)) await writeFile(this.path(key), body);
    else await pipeline(body, createWriteStream(this.path(key)));
  }

  async delete(key: string): Promise<void> {
    await rm(this.path(key), { force: true });
  }

  /**
   * Streams an upload to a temporary file, counting bytes; more than `limit` bytes aborts and
   * removes it. A complete upload lands with link(), which fails if the file exists: of two
   * uploads racing on one URL only the first to finish lands (a rename would replace a file that
   * may already be checked and attached).
   */
  async receive(key: string, body: Readable, limit: number): Promise<'stored' | 'too_large' | 'exists'> {
    const target = this.path(key);
    if ((await this.size(key)) !== null) return 'exists';
    await mkdir(dirname(target), { recursive: true });
    const temp = `${target}.${randomUUID()}.part`;
    let received = 0;
    let tooLarge = false;
    const counter = async function* (source: Readable) {
      for await (const chunk of source) {
        received += (chunk as Buffer).length;
        if (received > limit) {
          tooLarge = true;
          throw new Error('too large');
        }
        yield chunk as Buffer;
      }
    };
    // Opened before streaming: a write stream opening the file itself could create it after the
    // cleanup below, when the limit is hit before its open completes.
    const file = await open(temp, 'wx');
    try {
      await pipeline(body, counter, file.createWriteStream());
    } catch (err) {
      await file.close().catch(() => undefined);
      await rm(temp, { force: true });
      if (tooLarge) return 'too_large';
      throw err;
    }
    try {
      await link(temp, target);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EEXIST') return 'exists';
      throw err;
    } finally {
      await unlink(temp).catch(() => undefined);
    }
    return 'stored';
  }

  open(key: string): Readable {
    return createReadStream(this.path(key));
  }

  private path(key: string): string {
    if (!SAFE_KEY.test(key)) throw new Error('invalid storage key');
    return join(this.config.dataDir, 'attachments', key);
  }
}
