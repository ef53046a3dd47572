import { Readable } from 'node:stream';
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  ListMultipartUploadsCommand,
  ListObjectsV2Command,
  S3Client,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import type { BackupConfig } from '@app/core';
import { BackupStore, BackupStoreError } from './backup-store';

/** Parts uploaded at once: memory per backup is about (this + 1) parts. */
const PARTS_IN_FLIGHT = 2;
/**
 * A gateway that stops answering fails the request (the SDK then retries it twice) instead of
 * holding the backup: no connection within 10 s, or a request whose socket is silent for 30 s
 * (an idle time, not a duration: a slow part that keeps moving is not cut).
 */
const TIMEOUTS = { connectionTimeout: 10_000, socketTimeout: 30_000 };

type S3Settings = NonNullable<BackupConfig['s3']>;

/**
 * Any S3 API (Ceph RGW here), BACKUP_S3_*: a disk streamed as a multipart upload in parts of
 * BACKUP_S3_PART_MB, at most PARTS_IN_FLIGHT + 1 parts in memory whatever the disk's size. A
 * failed upload is aborted, so the bucket keeps no half backup; one whose process died is left
 * as an incomplete multipart upload that `abandon` aborts.
 */
export class S3BackupStore extends BackupStore {
  private readonly client: S3Client;
  private readonly bucket: string;

  constructor(
    settings: S3Settings,
    private readonly partBytes: number,
    timeouts: { connectionTimeout: number; socketTimeout: number } = TIMEOUTS,
  ) {
    super();
    this.bucket = settings.bucket;
    this.client = new S3Client({
      endpoint: settings.endpoint,
      region: settings.region,
      forcePathStyle: settings.forcePathStyle,
      credentials: { accessKeyId: settings.accessKeyId, secretAccessKey: settings.secretAccessKey },
      requestHandler: timeouts,
      // Over HTTP every part's SHA-256 is signed and checked by the gateway already; the SDK's extra
      // CRC32 of each part is CPU the disk's pipe needs (and RGW 16 predates those checksums).
      requestChecksumCalculation: 'WHEN_REQUIRED',
    });
  }

  async put(key: string, body: Readable, onProgress?: (bytes: number) => Promise<void> | void): Promise<number> {
    const { UploadId } = await this.call(() => this.client.send(new CreateMultipartUploadCommand({ Bucket: this.bucket, Key: key })));
    const parts: { PartNumber: number; ETag?: string }[] = [];
    const inFlight = new Set<Promise<void>>();
    let failure: Error | null = null;
    let bytes = 0;
    const send = (number: number, chunk: Buffer) => {
      const sent = this.client
        .send(
          new UploadPartCommand({ Bucket: this.bucket, Key: key, UploadId, PartNumber: number, Body: chunk, ContentLength: chunk.length }),
        )
        .then(async ({ ETag }) => {
          parts.push({ PartNumber: number, ETag });
          await onProgress?.(bytes);
        })
        // Kept, not thrown: a part fails while the next one is being read, with no one awaiting it yet.
        .catch((err: Error) => void (failure ??= err))
        .finally(() => inFlight.delete(sent));
      inFlight.add(sent);
    };
    const settled = async (limit: number) => {
      while (inFlight.size > limit && !failure) await Promise.race(inFlight);
      if (failure) throw failure;
    };
    try {
      let number = 0;
      // The next part is read while the others upload; it waits here for a free place (backpressure:
      // the disk is read no faster than the store takes it).
      for await (const chunk of partsOf(body, this.partBytes)) {
        await settled(PARTS_IN_FLIGHT - 1);
        bytes += chunk.length;
        send(++number, chunk);
      }
      // S3 needs at least one part, even for an empty object.
      if (number === 0) send(++number, Buffer.alloc(0));
      await settled(0);
      parts.sort((a, b) => a.PartNumber - b.PartNumber);
      await this.client.send(
        new CompleteMultipartUploadCommand({ Bucket: this.bucket, Key: key, UploadId, MultipartUpload: { Parts: parts } }),
      );
      return bytes;
    } catch (err) {
      body.destroy();
      await Promise.allSettled(inFlight);
      await this.client.send(new AbortMultipartUploadCommand({ Bucket: this.bucket, Key: key, UploadId })).catch(() => undefined);
      throw new BackupStoreError(`The backup could not be uploaded: ${(err as Error).message}`);
    }
  }

  async get(key: string): Promise<Readable> {
    const { Body } = await this.call(() => this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: key })));
    if (!(Body instanceof Readable)) throw new BackupStoreError('The backup store answered without a body.');
    return Body;
  }

  async remove(key: string): Promise<void> {
    await this.call(() => this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key })));
  }

  async abandon(key: string): Promise<void> {
    const { Uploads = [] } = await this.call(() => this.client.send(new ListMultipartUploadsCommand({ Bucket: this.bucket, Prefix: key })));
    for (const upload of Uploads.filter((u) => u.Key === key)) {
      await this.call(() =>
        this.client
          .send(new AbortMultipartUploadCommand({ Bucket: this.bucket, Key: key, UploadId: upload.UploadId }))
          // An abort sent earlier (to a gateway that hung, then went on) may have got there first.
          .catch((err: Error) => (err.name === 'NoSuchUpload' ? undefined : Promise.reject(err))),
      );
    }
    await this.remove(key);
  }

  async list(prefix: string): Promise<string[]> {
    const { Contents = [] } = await this.call(() => this.client.send(new ListObjectsV2Command({ Bucket: this.bucket, Prefix: prefix })));
    return Contents.map((object) => object.Key ?? '');
  }

  private async call<T>(op: () => Promise<T>): Promise<T> {
    try {
      return await op();
    } catch (err) {
      throw new BackupStoreError(`The backup store refused: ${(err as Error).name}: ${(err as Error).message}`);
    }
  }
}

/** The stream cut into parts of `size` bytes (the last one shorter), one part buffered at a time. */
export async function* partsOf(body: AsyncIterable<Buffer | string>, size: number): AsyncGenerator<Buffer> {
  let pending: Buffer[] = [];
  let length = 0;
  for await (const data of body) {
    let chunk = Buffer.isBuffer(data) ? data : Buffer.from(data);
    while (length + chunk.length >= size) {
      const take = size - length;
      pending.push(chunk.subarray(0, take));
      yield Buffer.concat(pending);
      chunk = chunk.subarray(take);
      pending = [];
      length = 0;
    }
    if (chunk.length) {
      pending.push(chunk);
      length += chunk.length;
    }
  }
  if (length) yield Buffer.concat(pending);
}
