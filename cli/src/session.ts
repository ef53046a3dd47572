import { createHostingClient, HostingApiError, HostingClient, Schemas } from '@hosting-account/sdk';
import { Context, contextName, DEFAULT_URL, readConfig, updateConfig } from './config';
import { UsageError } from './errors';
import { retryNotices } from './retry-notices';
import { reportingUnreachable } from './unreachable';
import { VERSION } from './version';

export const USER_AGENT = `hostctl/${VERSION}`;
const API_KEY_PREFIX = 'hpk_';
/** Refresh an access token this long before it expires, so a request never carries a stale one. */
const REFRESH_MARGIN_MS = 30_000;

export interface Target {
  url: string;
  /** Where `url` came from, for messages: `HOSTCTL_URL`, `context "work"`, `the default`. */
  urlSource: string;
  contextName: string;
  context?: Context;
}

/** The program-wide options a client depends on. */
export interface ClientOptions {
  context?: string;
  /** false with `--no-wait-rate-limit`: a 429 is answered at once instead of waited out. */
  waitRateLimit?: boolean;
}

/** Where the API is and which context is in use; `HOSTCTL_URL` wins over the context's URL. */
export function target(contextFlag?: string): Target {
  const config = readConfig();
  const name = contextName(config, contextFlag);
  const context = config.contexts[name];
  const [url, urlSource] = process.env.HOSTCTL_URL
    ? [process.env.HOSTCTL_URL, 'HOSTCTL_URL']
    : context?.url
      ? [context.url, `context "${name}"`]
      : [DEFAULT_URL, `the default: HOSTCTL_URL is not set and context "${name}" has no URL`];
  return { url: trimUrl(url), urlSource, contextName: name, context };
}

let credentialsInUse: string | undefined;

/** Where the credentials of this run's client came from (`HOSTCTL_TOKEN`, `context "work"`), once one was made. */
export function credentialSource(): string | undefined {
  return credentialsInUse;
}

/** A client with this context's credentials; `HOSTCTL_TOKEN` (an API key or access token) wins. */
export function apiClient(options: ClientOptions = {}): HostingClient {
  const { url, urlSource, contextName: name, context } = target(options.context);
  const fromEnvironment = process.env.HOSTCTL_TOKEN;
  const token = fromEnvironment || context?.apiKey || (context?.refreshToken ? sessionToken(url, urlSource, name) : undefined);
  if (!token) throw new UsageError(`not logged in (context "${name}"): run "hostctl auth login" or set HOSTCTL_TOKEN`);
  credentialsInUse = fromEnvironment ? 'HOSTCTL_TOKEN' : `context "${name}"`;
  return client(url, urlSource, options, token);
}

/** A client without credentials (login), or with a token of its own. */
export function client(url: string, urlSource: string, options: ClientOptions, token?: string | (() => Promise<string>)): HostingClient {
  return createHostingClient({
    baseUrl: url,
    ...(token ? { token } : {}),
    headers: { 'User-Agent': USER_AGENT },
    fetch: reportingUnreachable((request, init) => fetch(request, init), url, urlSource),
    retry: { onRetry: retryNotices(options) },
  });
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

function sessionToken(url: string, urlSource: string, name: string): () => Promise<string> {
  const post = reportingUnreachable((request, init) => fetch(request, init), url, urlSource);
  return async () => {
    const context = readConfig().contexts[name];
    if (!context?.refreshToken) throw new UsageError(`not logged in (context "${name}"): run "hostctl auth login"`);
    const expiresAt = Date.parse(context.accessTokenExpiresAt ?? '');
    if (context.accessToken && expiresAt - REFRESH_MARGIN_MS > Date.now()) return context.accessToken;
    const response = await post(
      new Request(`${url}/api/auth/refresh`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Accept: 'application/json', 'User-Agent': USER_AGENT },
        body: JSON.stringify({ refreshToken: context.refreshToken }),
      }),
    );
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

/**
 * The context whose saved session a command replaces with new tokens (`accounts switch`): an API
 * key belongs to one account, and a token from HOSTCTL_TOKEN leaves hostctl nowhere to keep new ones.
 */
export function savedSessionContext(contextFlag?: string): string {
  const { contextName: name, context } = target(contextFlag);
  const fromEnvironment = process.env.HOSTCTL_TOKEN;
  const keyHolder = fromEnvironment ? 'HOSTCTL_TOKEN' : `context "${name}"`;
  if (fromEnvironment?.startsWith(API_KEY_PREFIX) || (!fromEnvironment && context?.apiKey))
    throw new UsageError(
      `${keyHolder} holds an API key, and an API key belongs to one account: to act on another, log in with email and password ` +
        '("hostctl auth login" without --api-key) and switch, or use a key made on that account',
    );
  if (fromEnvironment)
    throw new UsageError('the token comes from HOSTCTL_TOKEN, where hostctl cannot keep new tokens: unset it and run "hostctl auth login"');
  if (!context?.refreshToken) throw new UsageError(`not logged in (context "${name}"): run "hostctl auth login"`);
  return name;
}

/** After leaving the account a session acts on: its next command refreshes the token, which then acts on another of the login's accounts. */
export function dropAccessToken(contextFlag?: string): void {
  const { contextName: name, context } = target(contextFlag);
  if (process.env.HOSTCTL_TOKEN || !context?.refreshToken) return;
  updateConfig((config) => {
    delete config.contexts[name].accessToken;
    delete config.contexts[name].accessTokenExpiresAt;
  });
}
