import type { RequestFacts } from '@app/core';

/** Most specific first: Edge and Opera say Chrome too, Chrome says Safari. */
const FAMILIES: readonly [RegExp, string][] = [
  [/\bhostctl\//i, 'hostctl'],
  [/\bhosting-account-mcp\//i, 'hosting-account-mcp'],
  [/\bcurl\//i, 'curl'],
  [/\bwget\//i, 'Wget'],
  [/\bPostmanRuntime\//i, 'Postman'],
  [/\bpython-requests\//i, 'python-requests'],
  [/\bpython-httpx\//i, 'python-httpx'],
  [/\bGo-http-client\//i, 'Go'],
  [/\bokhttp\//i, 'okhttp'],
  [/^node(-fetch)?\b|\bundici\b/i, 'Node.js'],
  [/\bEdg(e|A|iOS)?\//, 'Edge'],
  [/\bOPR\/|\bOpera\b/, 'Opera'],
  [/\bFirefox\/|\bFxiOS\//, 'Firefox'],
  [/\bChrom(e|ium)\/|\bCriOS\//, 'Chrome'],
  [/\bSafari\//, 'Safari'],
];

/** A User-Agent as a short client family ("curl", "Firefox", "hostctl"), "other", or null when none was sent. */
export function clientFamily(userAgent: string | null): string | null {
  if (!userAgent) return null;
  return FAMILIES.find(([pattern]) => pattern.test(userAgent))?.[1] ?? 'other';
}

/**
 * The facts of a request nobody authenticated (a refused sign-in, a reset asked for an address):
 * anyone who knows the account's email sends it, and the account's activity log (which its owner's
 * AI assistant reads) would keep their text; only the client family of the User-Agent is kept.
 */
export function anonymousFacts(request: RequestFacts | undefined): RequestFacts | undefined {
  return request && { ...request, userAgent: clientFamily(request.userAgent) };
}
