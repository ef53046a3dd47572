/**
 * Detail keys that could carry a secret. An entry is delivered to webhooks and shown to anyone who
 * can read the account's log, so a detail named like a credential is a programming error.
 */
const SECRET_KEY = /pass(word|phrase)?|secret|token|totp|otp|recovery|credential|private|(^|_)code$|^code|^key$|api_?key$/i;

/** The dotted paths of detail keys that look like secrets (nested objects and arrays included). */
export function secretPaths(details: unknown, path = ''): string[] {
  if (Array.isArray(details)) return details.flatMap((item, i) => secretPaths(item, `${path}[${i}]`));
  if (!details || typeof details !== 'object') return [];
  return Object.entries(details as Record<string, unknown>).flatMap(([key, value]) => {
    const here = path ? `${path}.${key}` : key;
    return [...(SECRET_KEY.test(key) ? [here] : []), ...secretPaths(value, here)];
  });
}

export function assertNoSecrets(action: string, details: Record<string, unknown>): void {
  const found = secretPaths(details);
  if (found.length) throw new Error(`Activity ${action}: details may not carry secrets (${found.join(', ')})`);
}
