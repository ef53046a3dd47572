import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { Problem } from '@app/core';
import { BlobStorage } from '../blob-storage/blob-storage';
import { AttachmentResponse, PresignedUploadResponse, PresignResponse } from './dto/attachment.response';
import { PresignFile } from './dto/attachment.request';
import { DOWNLOAD_URL_TTL_MS, UPLOAD_URL_TTL_MS } from '../support.types';
import { attachmentProblem, sanitizeFilename } from './attachment-rules';
import { AttachmentsRepository } from './attachments.repository';

@Injectable()
export class AttachmentsService {
  constructor(
    private readonly attachments: AttachmentsRepository,
    private readonly storage: BlobStorage,
  ) {}

  async presign(accountId: string, files: PresignFile[]): Promise<PresignResponse> {
    const checked = files.map((file, i) => {
      const filename = sanitizeFilename(file.filename);
      if (!filename)
        throw Problem.invalidInput(`files[${i}].filename has no usable name`, [
          { field: `files.${i}.filename`, message: 'has no usable name' },
        ]);
      const problem = attachmentProblem(filename, file.contentType);
      if (problem) throw Problem.invalidInput(`files[${i}]: ${problem}`, [{ field: `files.${i}.contentType`, message: problem }]);
      return { ...file, filename, contentType: file.contentType.toLowerCase() };
    });
    const expiresAt = new Date(Date.now() + UPLOAD_URL_TTL_MS);
    const rows = checked.map((file) => ({
      id: randomUUID(),
      accountId,
      messageId: null,
      filename: file.filename,
      contentType: file.contentType,
      declaredSize: file.size,
      size: null,
      storageKey: `${accountId}/${randomUUID()}`,
      uploadExpiresAt: expiresAt,
    }));
    await this.attachments.insert(rows);
    const uploads = await Promise.all(
      rows.map(async (row) => {
        const upload = await this.storage.presignUpload({
          key: row.storageKey,
          contentType: row.contentType,
          size: row.declaredSize,
          expiresAt,
        });
        return PresignedUploadResponse.fromUpload(row.id, upload, expiresAt, row.declaredSize);
      }),
    );
    return PresignResponse.fromUploads(uploads);
  }

  /** Checks the files are uploaded and within their declared size; outside any transaction (storage I/O). */
  async verifyUploaded(accountId: string, ids: string[]): Promise<Map<string, number>> {
    if (!ids.length) return new Map();
    const rows = await this.attachments.findForAccount(accountId, ids);
    if (rows.length !== ids.length) throw new Problem(400, 'attachment_invalid', 'An attachment does not exist in this account.');
    const sizes = new Map<string, number>();
    for (const row of rows) {
      if (row.messageId) throw Problem.conflict('attachment_in_use', `Attachment ${row.id} is already part of a message.`);
      const size = row.size ?? (await this.storage.size(row.storageKey));
      if (size === null) throw new Problem(400, 'attachment_invalid', `Attachment ${row.id} has not been uploaded.`);
      if (size > row.declaredSize) throw new Problem(400, 'attachment_invalid', `Attachment ${row.id} is larger than its declared size.`);
      sizes.set(row.id, size);
    }
    return sizes;
  }

  /** Binds verified attachments to a message; the row lock makes a second use a 409. */
  async attach(manager: EntityManager, accountId: string, messageId: string, sizes: Map<string, number>): Promise<void> {
    for (const [id, size] of sizes) {
      if (!(await this.attachments.bind(manager, accountId, id, messageId, size)))
        throw Problem.conflict('attachment_in_use', `Attachment ${id} is already part of a message.`);
    }
  }

  async forMessages(messageIds: string[]): Promise<Map<string, AttachmentResponse[]>> {
    const out = new Map<string, AttachmentResponse[]>();
    if (!messageIds.length) return out;
    const rows = await this.attachments.forMessages(messageIds);
    const expiresAt = new Date(Date.now() + DOWNLOAD_URL_TTL_MS);
    for (const row of rows) {
      const downloadUrl = await this.storage.presignDownload({
        key: row.storageKey,
        filename: row.filename,
        contentType: row.contentType,
        expiresAt,
      });
      const list = out.get(row.messageId!) ?? [];
      list.push(AttachmentResponse.from(row, downloadUrl, expiresAt));
      out.set(row.messageId!, list);
    }
    return out;
  }
}
