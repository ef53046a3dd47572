import { createHash, randomBytes } from 'node:crypto';

export const REFRESH_PREFIX = 'hrt_';

export function newRefreshToken(): { token: string; hash: string } {
  const token = REFRESH_PREFIX + randomBytes(32).toString('base64url');
  return { token, hash: hashRefreshToken(token) };
}

export function hashRefreshToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}
