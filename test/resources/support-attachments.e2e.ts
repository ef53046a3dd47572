import { existsSync, readdirSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import request from 'supertest';
import { AttachmentsCleanupJob } from '@app/support';
import { createAccount, TestAccount } from '../factories/accounts';
import { createTicket, presign, uploadedAttachment, uploadTo } from '../factories/support';
import { sharedTestApp, TestApp } from '../support/test-app';

const MiB = 1024 * 1024;

describe('Ticket attachments (local storage)', () => {
  let t: TestApp;
  let owner: TestAccount;
  beforeAll(async () => {
    t = await sharedTestApp();
    owner = await createAccount(t);
  });

  const presignRaw = (body: unknown, account = owner) =>
    request(t.http)
      .post('/api/support/tickets/attachments/presign')
      .set('Authorization', account.keyBearer)
      .send(body as object);
  const storedFiles = (account: TestAccount) => {
    const dir = join(t.config.dataDir, 'attachments', account.id);
    return existsSync(dir) ? readdirSync(dir) : [];
  };

  it('returns one signed PUT URL per file, valid 15 minutes (200)', async () => {
    const res = await presignRaw({
      files: [
        { filename: 'a.png', contentType: 'image/png', size: 10 },
        { filename: 'b.pdf', contentType: 'application/pdf', size: 20 },
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body.uploads).toHaveLength(2);
    const [first] = res.body.uploads;
    expect(first).toEqual({
      attachmentId: expect.any(String),
      url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:3000\/blobs\/uploads\//),
      method: 'PUT',
      headers: { 'Content-Type': 'image/png' },
      expiresAt: expect.any(String),
      maxSize: 10,
    });
    const ttl = Date.parse(first.expiresAt) - Date.now();
    expect(ttl).toBeGreaterThan(14 * 60_000);
    expect(ttl).toBeLessThanOrEqual(15 * 60_000);
  });

  it.each([
    ['no files', { files: [] }],
    ['six files', { files: Array.from({ length: 6 }, (_, i) => ({ filename: `${i}.png`, contentType: 'image/png', size: 1 })) }],
    ['a file over 10 MiB', { files: [{ filename: 'big.zip', contentType: 'application/zip', size: 10 * MiB + 1 }] }],
    ['an empty file', { files: [{ filename: 'a.txt', contentType: 'text/plain', size: 0 }] }],
    ['a fractional size', { files: [{ filename: 'a.txt', contentType: 'text/plain', size: 1.5 }] }],
    ['an executable', { files: [{ filename: 'setup.exe', contentType: 'application/x-msdownload', size: 5 }] }],
    ['html', { files: [{ filename: 'x.html', contentType: 'text/html', size: 5 }] }],
    ['a type that does not match the extension', { files: [{ filename: 'photo.exe', contentType: 'image/png', size: 5 }] }],
    ['a name that is only a path', { files: [{ filename: '../../', contentType: 'image/png', size: 5 }] }],
    ['files that are not objects', { files: ['a.png'] }],
    ['no body', {}],
  ])('refuses %s with 400', async (_name, body) => {
    const res = await presignRaw(body);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('invalid_input');
  });

  it.each([1.5, 'abc', 0])('names the rule a size of %j breaks (issue 42)', async (size) => {
    const res = await presignRaw({ files: [{ filename: 'a.txt', contentType: 'text/plain', size }] });
    expect(res.status).toBe(400);
    expect(res.body.detail).toBe('files[0].size must be a whole number from 1 to 10485760 (10 MiB)');
  });

  it('accepts exactly 10 MiB and 5 files, and strips path parts and control characters from names', async () => {
    const res = await presignRaw({
      files: [
        { filename: '../../etc/evil\u0007.log', contentType: 'text/plain', size: 10 * MiB },
        ...Array.from({ length: 4 }, (_, i) => ({ filename: `${i}.gif`, contentType: 'image/gif', size: 1 })),
      ],
    });
    expect(res.status).toBe(200);
    const ticket = await createTicket(t, owner);
    const [row] = await t.db.query('SELECT filename FROM attachments WHERE id = $1', [res.body.uploads[0].attachmentId]);
    expect(row.filename).toBe('evil.log');
    expect(ticket.id).toEqual(expect.any(String));
  });

  it('refuses an upload beyond the declared size and stores nothing', async () => {
    const account = await createAccount(t);
    const [upload] = await presign(t, account, [{ filename: 'a.log', contentType: 'text/plain', size: 10 }]);
    const res = await uploadTo(t, upload, Buffer.alloc(11, 'x'));
    expect(res.status).toBe(413);
    expect(storedFiles(account)).toEqual([]);
    // Without a Content-Length the size is enforced while streaming.
    const chunked = await new Promise<number>((resolve, reject) => {
      const { port } = t.http.address() as AddressInfo;
      const req = httpRequest(
        { host: '127.0.0.1', port, method: 'PUT', path: new URL(upload.url).pathname, headers: { 'Content-Type': 'text/plain' } },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      for (let i = 0; i < 5; i++) req.write(Buffer.alloc(1000, 'y'));
      req.end();
    });
    expect(chunked).toBe(413);
    expect(storedFiles(account)).toEqual([]);
    const attach = await request(t.http)
      .post('/api/support/tickets')
      .set('Authorization', account.keyBearer)
      .send({ subject: 's', message: 'm', attachmentIds: [upload.attachmentId] });
    expect(attach.status).toBe(400);
    expect(attach.body.code).toBe('attachment_invalid');
  });

  it('refuses a wrong content type (415), a tampered or foreign URL (403), a second upload (409)', async () => {
    const [upload] = await presign(t, owner, [{ filename: 'a.png', contentType: 'image/png', size: 4 }]);
    const path = new URL(upload.url).pathname;
    expect((await request(t.http).put(path).set('Content-Type', 'text/html').send('<b/>')).status).toBe(415);
    const tampered = path.replace(/.$/, (c) => (c === 'A' ? 'B' : 'A'));
    expect((await request(t.http).put(tampered).set('Content-Type', 'image/png').send(Buffer.alloc(4))).status).toBe(403);
    expect((await request(t.http).get(path.replace('/uploads/', '/downloads/'))).status).toBe(403);
    expect((await uploadTo(t, upload, Buffer.alloc(4))).status).toBe(204);
    expect((await uploadTo(t, upload, Buffer.alloc(4))).status).toBe(409);
  });

  it('lands only the first of two uploads racing on one URL: an attached file cannot be replaced (issue 17, finding 6)', async () => {
    const account = await createAccount(t);
    const [upload] = await presign(t, account, [{ filename: 'race.txt', contentType: 'text/plain', size: 5 }]);
    const { port } = t.http.address() as AddressInfo;
    // The slow upload passes every check and starts writing before the fast one exists.
    const slow = httpRequest({
      host: '127.0.0.1',
      port,
      method: 'PUT',
      path: new URL(upload.url).pathname,
      headers: { 'Content-Type': 'text/plain', 'Content-Length': '5' },
    });
    const slowStatus = new Promise<number>((resolve, reject) => {
      slow.on('response', (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      slow.on('error', reject);
    });
    slow.write('SL');
    await new Promise((r) => setTimeout(r, 300));
    expect((await uploadTo(t, upload, Buffer.from('first'))).status).toBe(204);
    const ticket = await createTicket(t, account, { attachmentIds: [upload.attachmentId] });
    slow.end('OWX');
    expect(await slowStatus).toBe(409);
    const read = await request(t.http).get(`/api/support/tickets/${ticket.id}`).set('Authorization', account.keyBearer).expect(200);
    expect(read.headers['cache-control']).toBe('no-store');
    const [attachment] = read.body.messages[0].attachments;
    const download = await request(t.http)
      .get(new URL(attachment.downloadUrl).pathname)
      .buffer(true)
      .parse((res, done) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => done(null, Buffer.concat(chunks)));
      });
    expect(download.status).toBe(200);
    expect((download.body as Buffer).toString()).toBe('first');
    expect(download.headers['content-security-policy']).toBe("default-src 'none'; sandbox");
    expect(storedFiles(account)).toHaveLength(1);
  });

  it('marks presign answers and ticket reads, which carry signed URLs, as not cacheable (issue 17, finding 11)', async () => {
    const res = await presignRaw({ files: [{ filename: 'a.png', contentType: 'image/png', size: 10 }] });
    expect(res.headers['cache-control']).toBe('no-store');
  });

  it('refuses to attach a file that was not uploaded, belongs to another account, or is already used', async () => {
    const [notUploaded] = await presign(t, owner, [{ filename: 'a.txt', contentType: 'text/plain', size: 3 }]);
    const open = (attachmentIds: string[], account = owner) =>
      request(t.http)
        .post('/api/support/tickets')
        .set('Authorization', account.keyBearer)
        .send({ subject: 's', message: 'm', attachmentIds });
    const missing = await open([notUploaded.attachmentId]);
    expect(missing.status).toBe(400);
    expect(missing.body.code).toBe('attachment_invalid');

    const stranger = await createAccount(t);
    const theirs = await uploadedAttachment(t, stranger);
    const foreign = await open([theirs]);
    expect(foreign.status).toBe(400);
    expect(foreign.body.code).toBe('attachment_invalid');

    const mine = await uploadedAttachment(t, owner);
    const ticket = await open([mine]);
    expect(ticket.status).toBe(200);
    const reuse = await request(t.http)
      .post(`/api/support/tickets/${ticket.body.id}/reply`)
      .set('Authorization', owner.keyBearer)
      .send({ message: 'again', attachmentIds: [mine] });
    expect(reuse.status).toBe(409);
    expect(reuse.body.code).toBe('attachment_in_use');
    const [{ n }] = await t.db.query('SELECT count(*)::int AS n FROM ticket_messages WHERE ticket_id = $1', [ticket.body.id]);
    expect(n).toBe(1);
  });

  it('deletes unreferenced uploads an hour after their URL expired, and keeps used ones', async () => {
    const account = await createAccount(t);
    const unused = await uploadedAttachment(t, account);
    const used = await uploadedAttachment(t, account);
    await createTicket(t, account, { attachmentIds: [used] });
    expect(storedFiles(account)).toHaveLength(2);
    const cleanup = t.app.get(AttachmentsCleanupJob);
    await cleanup.purgeUnreferenced(new Date(Date.now() + 30 * 60_000));
    expect(storedFiles(account)).toHaveLength(2);
    await cleanup.purgeUnreferenced(new Date(Date.now() + 76 * 60_000));
    expect(storedFiles(account)).toHaveLength(1);
    const rows = await t.db.query('SELECT id FROM attachments WHERE account_id = $1', [account.id]);
    expect(rows.map((r: { id: string }) => r.id)).toEqual([used]);
    expect(unused).not.toBe(used);
  });

  it('answers 401 without a token and 403 to a read-only key', async () => {
    await request(t.http).post('/api/support/tickets/attachments/presign').send({ files: [] }).expect(401);
    const reader = await createAccount(t, { scopes: ['read'] });
    expect((await presignRaw({ files: [{ filename: 'a.png', contentType: 'image/png', size: 1 }] }, reader)).status).toBe(403);
  });
});
