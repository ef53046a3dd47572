import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
// s3rver: a real S3-compatible server on loopback (it does not check signatures; refusals are tested on the local adapter).
import S3rver from 's3rver';
import { createAccount, TestAccount } from '../factories/accounts';
import { presign } from '../factories/support';
import { startTestApp, TestApp } from '../support/test-app';

describe('Ticket attachments on an S3-compatible store', () => {
  let s3: S3rver;
  let dir: string;
  let t: TestApp;
  let account: TestAccount;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 's3rver-'));
    s3 = new S3rver({
      address: '127.0.0.1',
      port: 0,
      silent: true,
      directory: dir,
      configureBuckets: [{ name: 'ticket-attachments', configs: [] }],
    });
    const { port } = (await s3.run()) as unknown as { port: number };
    t = await startTestApp({
      BLOB_STORAGE: 's3',
      S3_ENDPOINT: `http://127.0.0.1:${port}`,
      S3_REGION: 'us-east-1',
      S3_BUCKET: 'ticket-attachments',
      S3_ACCESS_KEY_ID: 'S3RVER',
      S3_SECRET_ACCESS_KEY: 'S3RVER',
      S3_FORCE_PATH_STYLE: 'true',
    });
    account = await createAccount(t);
  });
  afterAll(async () => {
    await t.close();
    await s3.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('uploads with the presigned PUT, attaches after HeadObject, downloads with a presigned GET', async () => {
    const body = Buffer.from('%PDF-1.4 tiny\n');
    const [upload] = await presign(t, account, [{ filename: 'invoice.pdf', contentType: 'application/pdf', size: body.length }]);
    expect(upload.headers).toEqual({ 'Content-Type': 'application/pdf', 'Content-Length': String(body.length), 'If-None-Match': '*' });
    // The store refuses a second PUT on the key: the condition is signed, so it cannot be left out.
    expect(new URL(upload.url).searchParams.get('X-Amz-SignedHeaders')?.split(';')).toEqual(expect.arrayContaining(['if-none-match']));
    expect(new URL(upload.url).searchParams.get('X-Amz-SignedHeaders')).toContain('content-length');
    const put = await fetch(upload.url, { method: 'PUT', headers: upload.headers, body });
    expect(put.status).toBe(200);

    const ticket = await request(t.http)
      .post('/api/support/tickets')
      .set('Authorization', account.keyBearer)
      .send({ subject: 'Invoice', message: 'See attached.', attachmentIds: [upload.attachmentId] });
    expect(ticket.status).toBe(200);
    const [attachment] = ticket.body.messages[0].attachments;
    expect(attachment).toMatchObject({ filename: 'invoice.pdf', size: body.length });
    const download = await fetch(attachment.downloadUrl);
    expect(download.status).toBe(200);
    expect(Buffer.from(await download.arrayBuffer()).equals(body)).toBe(true);
  });

  it('refuses to attach a stored object larger than declared (checked with HeadObject)', async () => {
    const [upload] = await presign(t, account, [{ filename: 'a.txt', contentType: 'text/plain', size: 4 }]);
    // s3rver does not enforce the signed length; a real store would refuse this PUT itself.
    await fetch(upload.url, { method: 'PUT', headers: { 'Content-Type': 'text/plain' }, body: Buffer.alloc(40, 'z') });
    const res = await request(t.http)
      .post('/api/support/tickets')
      .set('Authorization', account.keyBearer)
      .send({ subject: 's', message: 'm', attachmentIds: [upload.attachmentId] });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('attachment_invalid');
  });

  it('refuses an attachment that was never uploaded', async () => {
    const [upload] = await presign(t, account, [{ filename: 'b.txt', contentType: 'text/plain', size: 4 }]);
    const res = await request(t.http)
      .post('/api/support/tickets')
      .set('Authorization', account.keyBearer)
      .send({ subject: 's', message: 'm', attachmentIds: [upload.attachmentId] });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('attachment_invalid');
  });
});
