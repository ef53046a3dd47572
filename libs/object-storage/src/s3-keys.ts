import { randomInt } from 'node:crypto';

const UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
const MIXED = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

const random = (alphabet: string, length: number): string => Array.from({ length }, () => alphabet[randomInt(alphabet.length)]).join('');

/**
 * A key id shaped like S3's (20 characters), made here rather than by the gateway so that a
 * repeated step adds the same key instead of a second one. Its secret is the gateway's to make.
 */
export function newAccessKeyId(): string {
  return `HSK${random(UPPER, 17)}`;
}

/** A secret shaped like S3's (40 characters), as the simulated gateway makes one. */
export function newSecretAccessKey(): string {
  return random(MIXED, 40);
}

/** The gateway user and bucket of a service. */
export const gatewayUid = (serviceId: string): string => `svc-${serviceId}`;
export const serviceBucket = (serviceId: string): string => `svc-${serviceId}`;
