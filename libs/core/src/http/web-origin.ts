/** The serialised origin of a URL (`https://example.com`, lower case, no default port), as browsers send it in Origin; null for "null" or garbage. */
export function originOf(url: string): string | null {
  try {
    const origin = new URL(url).origin;
    return origin === 'null' ? null : origin;
  } catch {
    return null;
  }
}
