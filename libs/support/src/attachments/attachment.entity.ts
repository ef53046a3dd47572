import { Column, Entity } from 'typeorm';
import { AccountOwned } from '@app/core';

@Entity('attachments')
export class Attachment extends AccountOwned {
  @Column({ name: 'message_id', type: 'uuid', nullable: true }) messageId: string | null;
  @Column({ type: 'varchar', length: 255 }) filename: string;
  @Column({ name: 'content_type', type: 'varchar', length: 100 }) contentType: string;
  @Column({ name: 'declared_size', type: 'integer' }) declaredSize: number;
  @Column({ type: 'integer', nullable: true }) size: number | null;
  @Column({ name: 'storage_key', type: 'varchar', length: 200 }) storageKey: string;
  @Column({ name: 'upload_expires_at', type: 'timestamptz' }) uploadExpiresAt: Date;
  @Column({ name: 'created_at', type: 'timestamptz', insert: false }) createdAt: Date;
}
