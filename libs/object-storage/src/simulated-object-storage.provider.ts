import { Injectable } from '@nestjs/common';
import { GatewayBucket, GatewayUsage, ObjectStorageProvider, StorageLocation } from './object-storage-provider';

const REGION = 'eu-central-1';

/** The default adapter: credentials shaped like S3's, no real store; every gateway step succeeds at once. */
@Injectable()
export class SimulatedObjectStorageProvider extends ObjectStorageProvider {
  readonly remote = false;

  location(region?: string): StorageLocation | null {
    if (region !== undefined && region !== REGION) return null;
    return { endpoint: `https://${REGION}.objects.example.net`, region: REGION };
  }

  async apply(): Promise<void> {}

  async purge(): Promise<void> {}

  async usage(): Promise<GatewayUsage> {
    return { usedBytes: 0, objects: 0, buckets: 1 };
  }

  async buckets(uid: string): Promise<GatewayBucket[]> {
    return [{ name: uid, sizeBytes: 0, objects: 0, createdAt: null }];
  }
}
