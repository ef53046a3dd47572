import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager, In } from 'typeorm';
import { runSql, sqlRows } from '@app/core';
import { Attachment } from './attachment.entity';

/** A new row; the id may be chosen by the caller (the upload URL names it) or left to the database. */
export type NewAttachment = Omit<Attachment, 'createdAt' | 'id'> & { id?: string };

/** Attachment rows; the binding to a message is one conditional UPDATE, so a second use finds nothing to bind. */
@Injectable()
export class AttachmentsRepository {
  constructor(private readonly dataSource: DataSource) {}

  async insert(rows: NewAttachment[], manager: EntityManager = this.dataSource.manager): Promise<void> {
    await manager.insert(Attachment, rows);
  }

  findForAccount(accountId: string, ids: string[]): Promise<Attachment[]> {
    return this.dataSource.getRepository(Attachment).find({ where: { id: In(ids), accountId } });
  }

  forMessages(messageIds: string[]): Promise<Attachment[]> {
    return this.dataSource.getRepository(Attachment).find({ where: { messageId: In(messageIds) }, order: { createdAt: 'ASC', id: 'ASC' } });
  }

  /** False when the attachment is not the account's or already part of a message. */
  async bind(manager: EntityManager, accountId: string, id: string, messageId: string, size: number): Promise<boolean> {
    const rows = await sqlRows(
      manager,
      `UPDATE attachments SET message_id = $1, size = $2 WHERE id = $3 AND account_id = $4 AND message_id IS NULL RETURNING id`,
      [messageId, size, id, accountId],
    );
    return rows.length > 0;
  }

  unreferencedBefore(cutoff: Date, limit: number): Promise<Pick<Attachment, 'id' | 'storageKey'>[]> {
    return sqlRows<Pick<Attachment, 'id' | 'storageKey'>>(
      this.dataSource,
      `SELECT id, storage_key AS "storageKey" FROM attachments WHERE message_id IS NULL AND upload_expires_at < $1 LIMIT $2`,
      [cutoff, limit],
    );
  }

  async deleteUnreferenced(id: string): Promise<void> {
    await runSql(this.dataSource, `DELETE FROM attachments WHERE id = $1 AND message_id IS NULL`, [id]);
  }
}
