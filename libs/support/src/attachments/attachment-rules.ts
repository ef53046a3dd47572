/** Content types we take, and the file extensions each may carry (DESIGN.md: png, jpeg, gif, pdf, text, log, zip). */
export const ALLOWED_TYPES: Record<string, string[]> = {
  'image/png': ['.png'],
  'image/jpeg': ['.jpg', '.jpeg'],
  'image/gif': ['.gif'],
  'application/pdf': ['.pdf'],
  'text/plain': ['.txt', '.log', '.text'],
  'text/x-log': ['.log'],
  'application/zip': ['.zip'],
  'application/x-zip-compressed': ['.zip'],
};

// C0 and C1 control characters, DEL, and Unicode bidi overrides (a "gnp.exe" trick).
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

/** The last path segment, without control characters or bidi overrides, trimmed; null if nothing usable is left. */
export function sanitizeFilename(name: string): string | null {
  const base = name.split(/[\\/]/).pop() ?? '';
  const clean = base.replace(CONTROL, '').trim();
  if (!clean || clean === '.' || clean === '..' || clean.length > 255) return null;
  return clean;
}

/** Why a file may not be attached, or null when it may. */
export function attachmentProblem(filename: string, contentType: string): string | null {
  const allowed = ALLOWED_TYPES[contentType.toLowerCase()];
  if (!allowed) return `content type ${contentType} is not accepted; accepted: ${Object.keys(ALLOWED_TYPES).join(', ')}`;
  const dot = filename.lastIndexOf('.');
  const extension = dot > 0 ? filename.slice(dot).toLowerCase() : '';
  if (!allowed.includes(extension)) return `a ${contentType} file must end in ${allowed.join(' or ')}`;
  return null;
}
