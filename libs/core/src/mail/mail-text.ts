/** Control characters, line and paragraph separators, and bidirectional overrides and isolates. */
export const CONTROL_CHARACTERS = /[\p{Cc}\p{Zl}\p{Zp}\u202A-\u202E\u2066-\u2069]/u;
const CONTROL_RUNS = new RegExp(`${CONTROL_CHARACTERS.source}+`, 'gu');
/** The full stop and the dots IDNA treats as one (ideographic, full-width, half-width). */
const DOT_INSIDE_WORD = /(?<=\S)[.\u3002\uFF0E\uFF61](?=\S)/gu;

export const escapeHtml = (text: string): string =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/**
 * Text a customer chose (a display name), made safe to put in a mail:
 * control characters become spaces (no forged lines), and what a mail client would turn into a
 * link is written the way security notices "defang" addresses: `://` as `[:]//` and a dot inside
 * a word as `[.]`, so `https://evil.example` reads `https[:]//evil[.]example` and links nowhere.
 * A dot before a space ("Dr. Who") is left alone. HTML still needs escapeHtml() on the result.
 */
export function unlinkable(text: string): string {
  return text.replace(CONTROL_RUNS, ' ').replace(/:\/\//g, '[:]//').replace(DOT_INSIDE_WORD, '[.]');
}
