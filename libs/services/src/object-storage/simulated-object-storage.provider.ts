import { randomInt } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { BucketRef, IssuedCredentials, ObjectStorageProvider } from './object-storage-provider';

const UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
const MIXED = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const REGION = 'eu-central-1';

const random = (alphabet: string, length: number): string => Array.from({ length }, () => alphabet[randomInt(alphabet.length)]).join('');

/** The default adapter: credentials shaped like S3's (20-character key id, 40-character secret), no real store. */
@Injectable()
export class SimulatedObjectStorageProvider extends ObjectStorageProvider {
  async issueCredentials(bucket: BucketRef): Promise<IssuedCredentials> {
    return {
      endpoint: `https://${REGION}.objects.example.net`,
      region: REGION,
      bucket: `svc-${bucket.serviceId}`,
      accessKeyId: `HSK${random(UPPER, 17)}`,
      secretAccessKey: random(MIXED, 40),
    };
  }
}
