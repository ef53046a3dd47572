import { createHash, createHmac } from 'node:crypto';
import type { S3Key } from '../object-storage-provider';

/** SHA-256 (HMAC-SHA-256 with a secret) for the signer, from node:crypto. */
type Data = string | ArrayBuffer | ArrayBufferView;
const bytes = (data: Data): string | Uint8Array =>
  typeof data === 'string'
    ? data
    : ArrayBuffer.isView(data)
      ? new Uint8Array(data.buffer, data.byteOffset, data.byteLength)
      : new Uint8Array(data);

class Sha256 {
  private readonly hash;
  constructor(secret?: Data) {
    this.hash = secret ? createHmac('sha256', bytes(secret)) : createHash('sha256');
  }
  update(data: Data): void {
    this.hash.update(bytes(data));
  }
  async digest(): Promise<Uint8Array> {
    return new Uint8Array(this.hash.digest());
  }
}

export interface SignedRequest {
  url: string;
  method: string;
  headers: Record<string, string>;
}

/** An AWS Signature V4 request to an S3-compatible gateway (path-style; RGW's Admin Ops API signs the same way). */
export async function signS3Request(
  base: string,
  key: S3Key,
  region: string,
  method: string,
  path: string,
  query: Record<string, string> = {},
): Promise<SignedRequest> {
  const url = new URL(base);
  // Loaded at the first signed request: a replica that never talks to a gateway does not keep it.
  const { SignatureV4 } = await import('@smithy/signature-v4');
  const signer = new SignatureV4({ service: 's3', region, credentials: key, sha256: Sha256, uriEscapePath: false });
  const signed = await signer.sign({
    method,
    protocol: url.protocol,
    hostname: url.hostname,
    port: url.port ? Number(url.port) : undefined,
    path,
    query,
    headers: { host: url.host, 'x-amz-content-sha256': createHash('sha256').update('').digest('hex') },
  });
  const search = new URLSearchParams(query).toString();
  return { url: `${url.origin}${path}${search ? `?${search}` : ''}`, method, headers: signed.headers };
}
