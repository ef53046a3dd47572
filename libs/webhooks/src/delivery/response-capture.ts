/** What an attempt keeps of the receiver's answer, as Stripe and GitHub show it. */
export const BODY_EXCERPT_BYTES = 4 * 1024;
export const HEADERS_CAP_BYTES = 8 * 1024;

export interface CapturedResponse {
  /** Lower-case names in the order received; a repeated header's values joined with ", ". */
  headers: Record<string, string>;
  /** Some headers did not fit in HEADERS_CAP_BYTES and were left out. */
  headersTruncated: boolean;
  /** The first BODY_EXCERPT_BYTES of the body: UTF-8 text, or base64 when the bytes are not text. */
  body: string;
  bodyEncoding: 'utf8' | 'base64';
  bodyTruncated: boolean;
}

/** `rawHeaders` of a Node response (name, value, name, value, ...), kept while they fit in the cap. */
export function captureHeaders(rawHeaders: string[]): { headers: Record<string, string>; truncated: boolean } {
  const headers: Record<string, string> = {};
  let size = 0;
  let truncated = false;
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const name = rawHeaders[i].toLowerCase();
    const value = rawHeaders[i + 1];
    // As on the wire: "name: value\r\n", or ", value" for one more value of a header already kept.
    const cost = name in headers ? Buffer.byteLength(value) + 2 : Buffer.byteLength(name) + Buffer.byteLength(value) + 4;
    if (size + cost > HEADERS_CAP_BYTES) {
      truncated = true;
      continue;
    }
    size += cost;
    headers[name] = name in headers ? `${headers[name]}, ${value}` : value;
  }
  return { headers, truncated };
}

const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;

/** The start of a body, `seen` bytes long in all (it may be more than `bytes` holds). */
export function captureBody(bytes: Buffer, seen: number): Pick<CapturedResponse, 'body' | 'bodyEncoding' | 'bodyTruncated'> {
  const excerpt = bytes.subarray(0, BODY_EXCERPT_BYTES);
  const bodyTruncated = seen > excerpt.length;
  const text = utf8Text(excerpt, bodyTruncated);
  if (text !== null) return { body: text, bodyEncoding: 'utf8', bodyTruncated };
  return { body: excerpt.toString('base64'), bodyEncoding: 'base64', bodyTruncated };
}

/** The bytes as text, or null if they are not UTF-8 text; a character cut by the excerpt's end is left out. */
function utf8Text(bytes: Buffer, cut: boolean): string | null {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  for (let drop = 0; drop <= (cut ? Math.min(3, bytes.length) : 0); drop++) {
    try {
      const text = decoder.decode(bytes.subarray(0, bytes.length - drop));
      return CONTROL.test(text) ? null : text;
    } catch {
      // an incomplete last character, or not UTF-8
    }
  }
  return null;
}
