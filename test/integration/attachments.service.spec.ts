import {
  AttachmentsCleanupJob,
  AttachmentsService,
  BlobStorage,
  SupportModule,
  TicketsService,
  UNREFERENCED_GRACE_MS,
  UPLOAD_URL_TTL_MS,
} from '@app/support';
import { TransactionRunner } from '@app/core';
import { AttachmentsRepository } from '../../libs/support/src/attachments/attachments.repository';
import { callerFor, startTestModule, TestModule } from '../support/test-module';

describe('AttachmentsService (TestingModule on the real database)', () => {
  let m: TestModule;
  let attachments: AttachmentsService;
  let storage: BlobStorage;
  let rows: AttachmentsRepository;
  beforeAll(async () => {
    m = await startTestModule([SupportModule]);
    attachments = m.get(AttachmentsService);
    storage = m.get(BlobStorage);
    rows = m.get(AttachmentsRepository);
  });
  afterAll(() => m.close());

  /** A presigned attachment; `body` is stored under its key as the client's upload would be. */
  async function presigned(accountId: string, declared: number, body?: Buffer): Promise<string> {
    const { uploads } = await attachments.presign(accountId, [{ filename: 'app.log', contentType: 'text/plain', size: declared }]);
    const id = uploads[0].attachmentId;
    const [row] = await rows.findForAccount(accountId, [id]);
    if (body) await storage.put(row.storageKey, body, 'text/plain');
    return id;
  }
  const bind = (accountId: string, messageId: string, sizes: Map<string, number>) =>
    m.get(TransactionRunner).run((manager) => attachments.attach(manager, accountId, messageId, sizes));

  it('cleans the file name and refuses a type outside the list', async () => {
    const accountId = await m.accountId();
    const { uploads } = await attachments.presign(accountId, [
      { filename: '../../etc/report.PDF', contentType: 'Application/PDF', size: 10 },
    ]);
    const [row] = await rows.findForAccount(accountId, [uploads[0].attachmentId]);
    expect(row).toMatchObject({ filename: 'report.PDF', contentType: 'application/pdf', declaredSize: 10, messageId: null, size: null });
    await expect(
      attachments.presign(accountId, [{ filename: 'run.exe', contentType: 'application/x-msdownload', size: 10 }]),
    ).rejects.toMatchObject({
      status: 400,
    });
  });

  it('accepts only uploaded files of this account within their declared size', async () => {
    const owner = await m.accountId();
    const stranger = await m.accountId();
    const ok = await presigned(owner, 5, Buffer.from('12345'));
    const missing = await presigned(owner, 5);
    const tooBig = await presigned(owner, 2, Buffer.from('12345'));
    expect(await attachments.verifyUploaded(owner, [ok])).toEqual(new Map([[ok, 5]]));
    await expect(attachments.verifyUploaded(owner, [missing])).rejects.toMatchObject({ status: 400, code: 'attachment_invalid' });
    await expect(attachments.verifyUploaded(owner, [tooBig])).rejects.toMatchObject({ status: 400, code: 'attachment_invalid' });
    await expect(attachments.verifyUploaded(stranger, [ok])).rejects.toMatchObject({ status: 400, code: 'attachment_invalid' });
  });

  it('binds a file to one message only; a second use is a conflict', async () => {
    const accountId = await m.accountId();
    const id = await presigned(accountId, 5, Buffer.from('12345'));
    const sizes = await attachments.verifyUploaded(accountId, [id]);
    const { messages } = await m.get(TicketsService).create(callerFor(accountId), { subject: 's', message: 'first', attachmentIds: [id] });
    expect(messages[0].attachments).toEqual([
      expect.objectContaining({ id, filename: 'app.log', size: 5, downloadUrl: expect.any(String) }),
    ]);
    await expect(bind(accountId, messages[0].id, sizes)).rejects.toMatchObject({ status: 409, code: 'attachment_in_use' });
    await expect(attachments.verifyUploaded(accountId, [id])).rejects.toMatchObject({ status: 409, code: 'attachment_in_use' });
  });

  it('purges uploads no message uses once their grace period is over, and nothing else', async () => {
    const accountId = await m.accountId();
    const unused = await presigned(accountId, 5, Buffer.from('12345'));
    const used = await presigned(accountId, 5, Buffer.from('12345'));
    await m.get(TicketsService).create(callerFor(accountId), { subject: 's', message: 'with file', attachmentIds: [used] });
    const [unusedRow] = await rows.findForAccount(accountId, [unused]);
    expect(await m.get(AttachmentsCleanupJob).purgeUnreferenced(new Date())).toBe(0);
    const later = new Date(Date.now() + UPLOAD_URL_TTL_MS + UNREFERENCED_GRACE_MS + 1000);
    expect(await m.get(AttachmentsCleanupJob).purgeUnreferenced(later)).toBeGreaterThanOrEqual(1);
    expect((await rows.findForAccount(accountId, [unused, used])).map((r) => r.id)).toEqual([used]);
    expect(await storage.size(unusedRow.storageKey)).toBeNull();
  });
});
