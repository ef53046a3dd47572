import { Injectable } from '@nestjs/common';
import { GatewayBucket, GatewayUsage, GatewayUserSpec, ObjectStorageProvider, S3Key, StorageLocation } from './object-storage-provider';
import { newSecretAccessKey } from './s3-keys';

const REGION = 'eu-central-1';

/**
 * The default adapter: credentials shaped like S3's, no real store; every gateway step succeeds at
 * once. Like a gateway, it makes the secret of a key it is given without one.
 */
@Injectable()
export class SimulatedObjectStorageProvider extends ObjectStorageProvider {
  readonly remote = false;

  location(region?: string): StorageLocation | null {
    if (region !== undefined && region !== REGION) return null;
    return { endpoint: `https://${REGION}.objects.example.net`, region: REGION };
  }

  async apply(spec: GatewayUserSpec): Promise<S3Key[]> {
    return spec.keys
      .filter((k) => k.secretAccessKey === null)
      .map((k) => ({ accessKeyId: k.accessKeyId, secretAccessKey: newSecretAccessKey() }));
  }

  async purge(): Promise<void> {}

  async usage(): Promise<GatewayUsage> {
    return { usedBytes: 0, objects: 0, buckets: 1 };
  }

  async buckets(uid: string): Promise<GatewayBucket[]> {
    return [{ name: uid, sizeBytes: 0, objects: 0, createdAt: null }];
  }
}
