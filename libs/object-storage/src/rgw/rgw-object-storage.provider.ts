import { setTimeout as sleep } from 'node:timers/promises';
import type { ObjectStorageConfig } from '@app/core';
import {
  GatewayBucket,
  GatewayUsage,
  GatewayUserSpec,
  ObjectStorageProvider,
  ObjectStorageUnavailableError,
  S3Key,
  StorageLocation,
} from '../object-storage-provider';
import { RgwClient, RgwError, RgwServerError } from './rgw-admin-client';
import { RgwBucketInfo, RgwUserInfo } from './rgw-types';

const APPLY_ATTEMPTS = 4;

/**
 * Ceph RGW through its Admin Ops API (/admin/user, ?quota, ?key, /admin/bucket), signed with the
 * admin user's key (caps users=*;buckets=*;usage=read;metadata=read). Every step reads first and
 * changes only what differs, so a step repeated after a timeout or by a second process adopts
 * what exists. The service's bucket is made over S3 with the user's own key.
 */
export class RgwObjectStorageProvider extends ObjectStorageProvider {
  readonly remote = true;
  private readonly admin: S3Key;
  private readonly gateways = new Map<string, RgwClient>();

  constructor(private readonly config: ObjectStorageConfig) {
    super();
    this.admin = { accessKeyId: config.rgwAdminAccessKey!, secretAccessKey: config.rgwAdminSecretKey! };
    this.gateways.set(config.rgwZonegroup, new RgwClient(config.rgwAdminUrl!, config.rgwZonegroup, config.requestTimeoutMs));
    for (const [region, url] of Object.entries(config.regionUrls)) {
      if (!this.gateways.has(region)) this.gateways.set(region, new RgwClient(url, region, config.requestTimeoutMs));
    }
  }

  location(region = this.config.rgwZonegroup): StorageLocation | null {
    const gateway = this.gateways.get(region);
    if (!gateway) return null;
    const endpoint = region === this.config.rgwZonegroup ? (this.config.endpoint ?? gateway.baseUrl) : gateway.baseUrl;
    return { endpoint, region };
  }

  /**
   * Two writers changing one user at once (two processes, or a caller's try beside a job) can make
   * RGW answer 500: its metadata version check lost the race. The steps read again and redo what
   * still differs, so a 5xx answer is tried again, a moment later, up to three times; a gateway that is down
   * keeps answering 5xx (or nothing) and the error goes to the caller.
   */
  async apply(spec: GatewayUserSpec): Promise<S3Key[]> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.applyOnce(spec);
      } catch (err) {
        if (!(err instanceof RgwServerError) || attempt >= APPLY_ATTEMPTS) throw err;
        await sleep(50 * attempt + Math.floor(Math.random() * 100));
      }
    }
  }

  private async applyOnce(spec: GatewayUserSpec): Promise<S3Key[]> {
    const gw = this.gateway(spec.region);
    let user = await this.user(gw, spec.uid);
    if (!user) user = await this.create(gw, spec);
    if (user.max_buckets !== spec.maxBuckets || Boolean(user.suspended) !== spec.suspended) {
      await gw.admin(this.admin, {
        method: 'POST',
        path: '/admin/user',
        query: { uid: spec.uid, 'max-buckets': String(spec.maxBuckets), suspended: String(spec.suspended) },
      });
    }
    const quota = user.user_quota;
    if (!quota?.enabled || quota.max_size !== spec.quotaBytes || quota.max_objects !== spec.quotaObjects) {
      await gw.admin(this.admin, {
        method: 'PUT',
        path: '/admin/user',
        query: {
          quota: '',
          uid: spec.uid,
          'quota-type': 'user',
          'max-size': String(spec.quotaBytes),
          'max-objects': String(spec.quotaObjects),
          enabled: 'true',
        },
      });
    }
    const held = new Map(user.keys.map((k) => [k.access_key, k.secret_key]));
    const keys: S3Key[] = [];
    for (const { accessKeyId } of spec.keys) {
      keys.push({ accessKeyId, secretAccessKey: held.get(accessKeyId) ?? (await this.makeKey(gw, spec.uid, accessKeyId)) });
    }
    const wanted = new Set(spec.keys.map((k) => k.accessKeyId));
    for (const accessKey of [...held.keys()].filter((k) => !wanted.has(k))) {
      await ignoring(
        404,
        gw.admin(this.admin, { method: 'DELETE', path: '/admin/user', query: { key: '', uid: spec.uid, 'access-key': accessKey } }),
      );
    }
    if (spec.bucket && !spec.suspended && keys.length) await this.ensureBucket(gw, keys[0], spec.bucket);
    return keys.filter((key, i) => key.secretAccessKey !== spec.keys[i].secretAccessKey);
  }

  /**
   * Adds the key with a secret the gateway makes, read from the answer: a request's URL is written
   * to the gateway's access log (and any proxy's), so no secret goes in one. Added again, a key gets
   * a new secret; a step repeated after a lost answer finds the key and reads its secret instead.
   */
  private async makeKey(gw: RgwClient, uid: string, accessKeyId: string): Promise<string> {
    const keys = await gw.admin<RgwUserInfo['keys']>(this.admin, {
      method: 'PUT',
      path: '/admin/user',
      query: { key: '', uid, 'key-type': 's3', 'access-key': accessKeyId, 'generate-key': 'true' },
    });
    const made = keys?.find((k) => k.access_key === accessKeyId);
    if (!made) throw new ObjectStorageUnavailableError(`The storage gateway did not answer with the key ${accessKeyId} it made`);
    return made.secret_key;
  }

  async purge(uid: string, region: string): Promise<void> {
    await ignoring(
      404,
      this.gateway(region).admin(this.admin, { method: 'DELETE', path: '/admin/user', query: { uid, 'purge-data': 'true' } }),
    );
  }

  async usage(uid: string, region: string): Promise<GatewayUsage | null> {
    const gw = this.gateway(region);
    const user = await ignoring(
      404,
      gw.admin<RgwUserInfo>(this.admin, { method: 'GET', path: '/admin/user', query: { uid, stats: 'true', sync: 'true' } }),
    );
    if (!user) return null;
    const names = (await gw.admin<string[]>(this.admin, { method: 'GET', path: '/admin/bucket', query: { uid } })) ?? [];
    return { usedBytes: user.stats?.size ?? 0, objects: user.stats?.num_objects ?? 0, buckets: names.length };
  }

  async buckets(uid: string, region: string): Promise<GatewayBucket[]> {
    const list = await ignoring(
      404,
      this.gateway(region).admin<RgwBucketInfo[]>(this.admin, { method: 'GET', path: '/admin/bucket', query: { uid, stats: 'true' } }),
    );
    return (list ?? []).map((b) => ({
      name: b.bucket,
      sizeBytes: b.usage?.['rgw.main']?.size ?? 0,
      objects: b.usage?.['rgw.main']?.num_objects ?? 0,
      createdAt: b.creation_time ? new Date(b.creation_time).toISOString() : null,
    }));
  }

  private gateway(region: string): RgwClient {
    const gateway = this.gateways.get(region);
    if (!gateway) throw new ObjectStorageUnavailableError(`No storage gateway is configured for region ${region}`);
    return gateway;
  }

  private user(gw: RgwClient, uid: string): Promise<RgwUserInfo | null> {
    return ignoring(404, gw.admin<RgwUserInfo>(this.admin, { method: 'GET', path: '/admin/user', query: { uid } }));
  }

  /** Without keys (they and the quota follow), so nothing can be written before the quota is set. */
  private async create(gw: RgwClient, spec: GatewayUserSpec): Promise<RgwUserInfo> {
    try {
      return (await gw.admin<RgwUserInfo>(this.admin, {
        method: 'PUT',
        path: '/admin/user',
        query: {
          uid: spec.uid,
          'display-name': spec.displayName,
          'generate-key': 'false',
          'max-buckets': String(spec.maxBuckets),
          suspended: String(spec.suspended),
        },
      }))!;
    } catch (err) {
      // Another process made it since we looked: adopt it.
      if (err instanceof RgwError && err.code === 'UserAlreadyExists') return (await this.user(gw, spec.uid))!;
      throw err;
    }
  }

  private async ensureBucket(gw: RgwClient, key: S3Key, bucket: string): Promise<void> {
    const path = `/${bucket}`;
    if (
      (await ignoring(
        404,
        gw.send(key, { method: 'HEAD', path }).then(() => true),
      )) === true
    )
      return;
    try {
      await gw.send(key, { method: 'PUT', path });
    } catch (err) {
      if (!(err instanceof RgwError && err.code === 'BucketAlreadyOwnedByYou')) throw err;
    }
  }
}

/** The call's answer, or null when the gateway answered `status` (a thing already gone or not there). */
async function ignoring<T>(status: number, call: Promise<T | null>): Promise<T | null> {
  try {
    return await call;
  } catch (err) {
    if (err instanceof RgwError && err.status === status) return null;
    throw err;
  }
}
