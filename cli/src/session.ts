import { createHostingClient, HostingApiError, HostingClient, Schemas } from '@hosting-account/sdk';
import { Context, contextName, DEFAULT_URL, readConfig, updateConfig } from './config';
import { UsageError } from './errors';
import { VERSION } from './version';

export const USER_AGENT = `hostctl/${VERSION}`;
/** Refresh an access token this long before it expires, so a request never carries a stale one. */
const REFRESH_MARGIN_MS = 30_000;

export interface Target {
  url: string;
  contextName: string;
  context?: Context;
}

/** Where the API is and which context is in use; `HOSTCTL_URL` wins over the context's URL. */
export function target(contextFlag?: string): Target {
  const config = readConfig();
  const name = contextName(config, contextFlag);
  const context = config.contexts[name];
  return { url: trimUrl(process.env.HOSTCTL_URL || context?.url || DEFAULT_URL), contextName: name, context };
}

/** A client with this context's credentials; `HOSTCTL_TOKEN` (an API key or access token) wins. */
export function apiClient(contextFlag?: string): HostingClient {
  const { url, contextName: name, context } = target(contextFlag);
  const token = process.env.HOSTCTL_TOKEN || context?.apiKey || (context?.refreshToken ? sessionToken(url, name) : undefined);
  if (!token) throw new UsageError(`not logged in (context "${name}"): run "hostctl auth login" or set HOSTCTL_TOKEN`);
  return createHostingClient({ baseUrl: url, token, headers: { 'User-Agent': USER_AGENT } });
}

/** A client without credentials, for login and refresh. */
export function anonymousClient(url: string): HostingClient {
  return createHostingClient({ baseUrl: url, headers: { 'User-Agent': USER_AGENT } });
}

export function sessionFields(
  tokens: Schemas['AuthTokensResponse'],
): Pick<Context, 'accessToken' | 'accessTokenExpiresAt' | 'refreshToken'> {
  return {
    accessToken: tokens.accessToken,
    accessTokenExpiresAt: new Date(Date.now() + tokens.expiresIn * 1000).toISOString(),
    refreshToken: tokens.refreshToken,
  };
}

function sessionToken(url: string, name: string): () => Promise<string> {
  return async () => {
    const context = readConfig().contexts[name];
    if (!context?.refreshToken) throw new UsageError(`not logged in (context "${name}"): run "hostctl auth login"`);
    const expiresAt = Date.parse(context.accessTokenExpiresAt ?? '');
    if (context.accessToken && expiresAt - REFRESH_MARGIN_MS > Date.now()) return context.accessToken;
    const response = await fetch(`${url}/api/auth/refresh`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json', 'User-Agent': USER_AGENT },
      body: JSON.stringify({ refreshToken: context.refreshToken }),
    });
    const body = await response.json().catch(() => undefined);
    if (!response.ok) throw new HostingApiError(response, body);
    const fields = sessionFields(body as Schemas['AuthTokensResponse']);
    updateConfig((config) => Object.assign(config.contexts[name], fields));
    return fields.accessToken!;
  };
}

export function trimUrl(url: string): string {
  return url.replace(/\/+$/, '');
}
