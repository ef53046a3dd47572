import { createHmac, timingSafeEqual } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { AppConfig } from '../config/app-config';

/** HMAC-SHA256 tokens for URLs the API itself serves (uploads, downloads): payload.expiry.mac */
@Injectable()
export class UrlSigner {
  constructor(private readonly config: AppConfig) {}

  sign(purpose: string, payload: Record<string, string | number>, expiresAt: Date): string {
    const body = Buffer.from(JSON.stringify({ ...payload, exp: Math.floor(expiresAt.getTime() / 1000) })).toString('base64url');
    return `${body}.${this.mac(purpose, body)}`;
  }

  /** The payload if the token is authentic, for this purpose and unexpired; otherwise null. */
  verify<T extends Record<string, string | number>>(purpose: string, token: string): (T & { exp: number }) | null {
    const [body, mac] = token.split('.');
    if (!body || !mac) return null;
    const expected = Buffer.from(this.mac(purpose, body));
    const given = Buffer.from(mac);
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) return null;
    try {
      const payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as T & { exp: number };
      return payload.exp * 1000 > Date.now() ? payload : null;
    } catch {
      return null;
    }
  }

  private mac(purpose: string, body: string): string {
    return createHmac('sha256', this.config.signingSecret).update(`${purpose}:${body}`).digest('base64url');
  }
}
