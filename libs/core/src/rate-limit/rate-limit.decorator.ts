import { SetMetadata } from '@nestjs/common';

export type RateLimitBucket =
  'login' | 'password' | 'register' | 'password-reset' | 'ticket-create' | 'presign' | 'console' | 'root-password' | 'rescue' | 'metrics';
export const RATE_LIMIT_BUCKET = 'rate-limit:bucket';

/** Adds a tighter bucket to a route, on top of the general budget per credential. */
export const RateLimit = (bucket: RateLimitBucket) => SetMetadata(RATE_LIMIT_BUCKET, bucket);
