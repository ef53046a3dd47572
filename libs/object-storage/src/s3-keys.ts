import { randomInt } from 'node:crypto';
import type { S3Key } from './object-storage-provider';

const UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
const MIXED = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

const random = (alphabet: string, length: number): string => Array.from({ length }, () => alphabet[randomInt(alphabet.length)]).join('');

/**
 * A key shaped like S3's (20-character id, 40-character secret), made here rather than by the
 * gateway so that a repeated step adds the same key instead of a second one.
 */
export function newS3Key(): S3Key {
  return { accessKeyId: `HSK${random(UPPER, 17)}`, secretAccessKey: random(MIXED, 40) };
}

/** The gateway user and bucket of a service. */
export const gatewayUid = (serviceId: string): string => `svc-${serviceId}`;
export const serviceBucket = (serviceId: string): string => `svc-${serviceId}`;
