import { Readable } from 'node:stream';
import { DeleteObjectCommand, GetObjectCommand, HeadObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { Injectable, OnApplicationShutdown } from '@nestjs/common';
import { AppConfig } from '@app/core';
import { BlobStorage, DownloadSpec, PresignedUpload, UploadSpec } from './blob-storage';

const seconds = (until: Date) => Math.max(1, Math.floor((until.getTime() - Date.now()) / 1000));

/**
 * Any S3-compatible store (AWS S3, MinIO, Ceph, R2). The presigned PUT signs Content-Length and
 * Content-Type, so the store itself refuses a body of another size; the size is checked again
 * with HeadObject when a message references the file. It also signs `If-None-Match: *`: the
 * store refuses a second PUT on the same key, so a file that was checked and attached cannot be
 * replaced through its upload URL.
 */
@Injectable()
export class S3BlobStorage extends BlobStorage implements OnApplicationShutdown {
  private readonly client: S3Client;
  private readonly bucket: string;

  constructor(config: AppConfig) {
    super();
    this.bucket = config.s3.bucket;
    this.client = new S3Client({
      endpoint: config.s3.endpoint,
      region: config.s3.region,
      forcePathStyle: config.s3.forcePathStyle,
      credentials: { accessKeyId: config.s3.accessKeyId ?? '', secretAccessKey: config.s3.secretAccessKey ?? '' },
    });
  }

  async presignUpload(spec: UploadSpec): Promise<PresignedUpload> {
    const command = new PutObjectCommand({
      Bucket: this.bucket,
      Key: spec.key,
      ContentType: spec.contentType,
      ContentLength: spec.size,
      IfNoneMatch: '*',
    });
    const url = await getSignedUrl(this.client, command, {
      expiresIn: seconds(spec.expiresAt),
      signableHeaders: new Set(['content-type', 'content-length', 'if-none-match']),
    });
    return { url, method: 'PUT', headers: { 'Content-Type': spec.contentType, 'Content-Length': String(spec.size), 'If-None-Match': '*' } };
  }

  async presignDownload(spec: DownloadSpec): Promise<string> {
    const command = new GetObjectCommand({
      Bucket: this.bucket,
      Key: spec.key,
      ResponseContentType: spec.contentType,
      ResponseContentDisposition: `attachment; filename*=UTF-8''${encodeURIComponent(spec.filename)}`,
    });
    return getSignedUrl(this.client, command, { expiresIn: seconds(spec.expiresAt) });
  }

  async size(key: string): Promise<number | null> {
    try {
      const head = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: key }));
      return head.ContentLength ?? null;
    } catch (err) {
      const status = (err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
      if (status === 404 || (err as Error).name === 'NotFound') return null;
      throw err;
    }
  }

  async put(key: string, body: Buffer | Readable, contentType: string): Promise<void> {
    const bytes = Buffer.isBuffer(body) ? body : Buffer.concat(await body.toArray());
    await this.client.send(new PutObjectCommand({ Bucket: this.bucket, Key: key, Body: bytes, ContentType: contentType }));
  }

  async delete(key: string): Promise<void> {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key }));
  }

  onApplicationShutdown(): void {
    this.client.destroy();
  }
}
