import request from 'supertest';
import { TestApp } from '../support/test-app';
import { TestAccount } from './accounts';

/** PUT bytes to a presigned URL: its path is served by the test app (PUBLIC_URL is not its address). */
export function uploadTo(t: TestApp, upload: { url: string; headers: Record<string, string> }, body: Buffer) {
  const { pathname } = new URL(upload.url);
  let req = request(t.http).put(pathname);
  for (const [name, value] of Object.entries(upload.headers)) if (name.toLowerCase() !== 'content-length') req = req.set(name, value);
  return req.send(body);
}

export async function presign(t: TestApp, account: TestAccount, files: { filename: string; contentType: string; size: number }[]) {
  const res = await request(t.http)
    .post('/api/support/tickets/attachments/presign')
    .set('Authorization', account.keyBearer)
    .send({ files });
  if (res.status !== 200) throw new Error(`presign failed: ${res.status} ${res.text}`);
  return res.body.uploads as {
    attachmentId: string;
    url: string;
    method: string;
    headers: Record<string, string>;
    expiresAt: string;
    maxSize: number;
  }[];
}

/** An attachment that is uploaded and ready to be referenced. */
export async function uploadedAttachment(t: TestApp, account: TestAccount, body = Buffer.from('hello log\n'), filename = 'app.log') {
  const [upload] = await presign(t, account, [{ filename, contentType: 'text/plain', size: body.length }]);
  const res = await uploadTo(t, upload, body);
  if (res.status !== 204) throw new Error(`upload failed: ${res.status} ${res.text}`);
  return upload.attachmentId;
}

export async function createTicket(t: TestApp, account: TestAccount, body: Record<string, unknown> = {}) {
  const res = await request(t.http)
    .post('/api/support/tickets')
    .set('Authorization', account.keyBearer)
    .send({ subject: 'Server down', message: 'web-1 does not answer', ...body });
  if (res.status !== 200) throw new Error(`ticket failed: ${res.status} ${res.text}`);
  return res.body;
}
