import { readFileSync, statSync } from 'node:fs';
import { basename, extname } from 'node:path';
import { HostingClient, unwrap } from '@hosting-account/sdk';
import { UsageError } from './errors';

const CONTENT_TYPES: Record<string, string> = {
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.pdf': 'application/pdf',
  '.txt': 'text/plain',
  '.text': 'text/plain',
  '.log': 'text/plain',
  '.zip': 'application/zip',
};

/**
 * Presigns the files, uploads each to its URL (plain fetch: the URL is signed, so no bearer
 * header), and returns the attachment ids to name in a ticket or reply.
 */
export async function uploadAttachments(api: HostingClient, paths: string[]): Promise<string[]> {
  if (paths.length === 0) return [];
  const files = paths.map((path) => {
    let size: number;
    try {
      size = statSync(path).size;
    } catch (error) {
      throw new UsageError(`cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? error}`);
    }
    const contentType = CONTENT_TYPES[extname(path).toLowerCase()];
    if (!contentType) throw new UsageError(`${path}: attachments must be png, jpeg, gif, pdf, txt, log or zip files`);
    return { path, filename: basename(path), contentType, size };
  });
  const { uploads } = await unwrap(
    api.POST('/api/support/tickets/attachments/presign', {
      body: { files: files.map(({ filename, contentType, size }) => ({ filename, contentType, size })) },
    }),
  );
  await Promise.all(
    uploads.map(async (upload, i) => {
      const headers = Object.fromEntries(Object.entries(upload.headers).filter(([name]) => name.toLowerCase() !== 'content-length'));
      const response = await fetch(upload.url, { method: upload.method, headers, body: readFileSync(files[i].path) });
      if (!response.ok)
        throw new Error(`upload of ${files[i].path} failed: HTTP ${response.status} ${(await response.text()).slice(0, 300)}`);
    }),
  );
  return uploads.map((upload) => upload.attachmentId);
}
