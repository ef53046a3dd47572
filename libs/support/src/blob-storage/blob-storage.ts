import type { Readable } from 'node:stream';

export interface PresignedUpload {
  url: string;
  method: 'PUT';
  /** Headers the client must send with the PUT (they are part of the signature). */
  headers: Record<string, string>;
}

export interface UploadSpec {
  key: string;
  contentType: string;
  size: number;
  expiresAt: Date;
}

export interface DownloadSpec {
  key: string;
  filename: string;
  contentType: string;
  expiresAt: Date;
}

/**
 * Where attachment bytes live. Clients upload and download directly with presigned URLs; the API
 * only signs, checks sizes and deletes. Adapters: local disk (embedded default) and S3-compatible.
 */
export abstract class BlobStorage {
  abstract presignUpload(spec: UploadSpec): Promise<PresignedUpload>;
  abstract presignDownload(spec: DownloadSpec): Promise<string>;
  /** Stored size in bytes, or null if nothing was uploaded under the key. */
  abstract size(key: string): Promise<number | null>;
  abstract put(key: string, body: Buffer | Readable, contentType: string): Promise<void>;
  abstract delete(key: string): Promise<void>;
}
