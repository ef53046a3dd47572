import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import type { AuthorType } from '../support.types';

@Entity('ticket_messages')
export class TicketMessage {
  @PrimaryGeneratedColumn('uuid') id: string;
  @Column({ name: 'ticket_id', type: 'uuid' }) ticketId: string;
  @Column({ name: 'author_type', type: 'varchar', length: 10 }) authorType: AuthorType;
  @Column({ name: 'author_name', type: 'varchar', length: 100 }) authorName: string;
  @Column({ type: 'text' }) message: string;
  @Column({ name: 'created_at', type: 'timestamptz', insert: false }) createdAt: Date;
}
