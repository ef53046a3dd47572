import { WebhooksConfig } from '@app/core';
import { isIpLiteral, nonPublicKind } from './address-policy';

export const URL_MAX_LENGTH = 2048;

/**
 * Why a URL cannot be an endpoint, or null. Host names are resolved at each attempt, not here
 * (their addresses change); an address literal is checked at once.
 */
export function urlProblem(value: string, config: Pick<WebhooksConfig, 'allowHttp' | 'allowPrivate'>): string | null {
  if (value.length > URL_MAX_LENGTH) return `must be at most ${URL_MAX_LENGTH} characters`;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'must be an absolute URL';
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && config.allowHttp)) {
    return config.allowHttp ? 'must use https or http' : 'must use https';
  }
  if (url.username || url.password) return 'may not carry credentials';
  if (!url.hostname) return 'must name a host';
  if (url.hash) return 'may not have a fragment';
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const kind = !config.allowPrivate && isIpLiteral(host) ? nonPublicKind(host) : null;
  return kind && `may not point at a non-public address (${kind})`;
}
