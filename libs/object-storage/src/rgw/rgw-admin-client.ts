import type { S3Key } from '../object-storage-provider';
import { ObjectStorageUnavailableError } from '../object-storage-provider';
import { signS3Request } from './sigv4';

/** A refusal from the gateway (4xx) with RGW's error code, e.g. NoSuchUser or UserAlreadyExists. */
export class RgwError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
  ) {
    super(`The storage gateway answered ${status} ${code}`);
  }
}

/** The gateway answered 5xx: down or overloaded, or it lost a race between two writers of one user's metadata. */
export class RgwServerError extends ObjectStorageUnavailableError {
  constructor(
    readonly baseUrl: string,
    readonly status: number,
  ) {
    super(`The storage gateway at ${baseUrl} answered ${status}`);
  }
}

export interface RgwCall {
  method: 'GET' | 'PUT' | 'POST' | 'DELETE' | 'HEAD';
  path: string;
  query?: Record<string, string>;
}

/**
 * One gateway (Admin Ops and S3 on the same URL): signed requests, a timeout on each, 4xx as
 * RgwError, anything else (no answer, 5xx) as ObjectStorageUnavailableError. Never logs keys.
 */
export class RgwClient {
  constructor(
    readonly baseUrl: string,
    readonly zonegroup: string,
    private readonly timeoutMs: number,
  ) {}

  /** An Admin Ops call with the admin key; the parsed JSON answer, or null for an empty one. */
  admin<T>(key: S3Key, call: RgwCall): Promise<T | null> {
    return this.send<T>(key, { ...call, query: { ...call.query, format: 'json' } });
  }

  async send<T>(key: S3Key, call: RgwCall): Promise<T | null> {
    const signed = await signS3Request(this.baseUrl, key, this.zonegroup, call.method, call.path, call.query);
    let res: Response;
    try {
      res = await fetch(signed.url, { method: signed.method, headers: signed.headers, signal: AbortSignal.timeout(this.timeoutMs) });
    } catch (err) {
      const cause = (err as { cause?: { code?: string } }).cause?.code ?? (err as Error).name;
      throw new ObjectStorageUnavailableError(`The storage gateway at ${this.baseUrl} did not answer (${cause})`);
    }
    const text = await res.text().catch(() => '');
    if (res.status >= 500) throw new RgwServerError(this.baseUrl, res.status);
    if (res.status >= 400) throw new RgwError(res.status, errorCode(text) ?? String(res.status));
    if (!text || call.method === 'HEAD') return null;
    return call.path.startsWith('/admin/') ? (JSON.parse(text) as T) : (text as T);
  }
}

/** RGW answers errors as JSON (admin) or XML (S3). */
function errorCode(body: string): string | undefined {
  try {
    return (JSON.parse(body) as { Code?: string }).Code;
  } catch {
    return /<Code>([^<]+)<\/Code>/.exec(body)?.[1];
  }
}
