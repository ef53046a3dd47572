import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import type { AuthorType } from '../support.types';

@Entity('ticket_messages')
export class TicketMessage {
  @PrimaryGeneratedColumn('uuid') id: string;
  @Column({ name: 'ticket_id', type: 'uuid' }) ticketId: string;
  @Column({ name: 'author_type', type: 'varchar', length: 10 }) authorType: AuthorType;
  @Column({ name: 'author_name', type: 'varchar', length: 100 }) authorName: string;
  /** The member who wrote a customer's message, their address and the API key they used; null for staff. */
  @Column({ name: 'author_member_id', type: 'uuid', nullable: true }) authorMemberId: string | null;
  @Column({ name: 'author_email', type: 'varchar', length: 254, nullable: true }) authorEmail: string | null;
  @Column({ name: 'author_key_id', type: 'uuid', nullable: true }) authorKeyId: string | null;
  @Column({ type: 'text' }) message: string;
  @Column({ name: 'created_at', type: 'timestamptz', insert: false }) createdAt: Date;
}
