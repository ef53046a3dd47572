import { Column, Entity } from 'typeorm';
import { AccountOwned } from '@app/core';
import type { Department, Priority, TicketStatus } from '../support.types';

@Entity('tickets')
export class Ticket extends AccountOwned {
  @Column({ type: 'varchar', length: 16, insert: false }) reference: string;
  @Column({ type: 'varchar', length: 200 }) subject: string;
  @Column({ type: 'varchar', length: 20 }) status: TicketStatus;
  @Column({ type: 'varchar', length: 10 }) priority: Priority;
  @Column({ type: 'varchar', length: 20 }) department: Department;
  @Column({ name: 'service_id', type: 'uuid', nullable: true }) serviceId: string | null;
  @Column({ name: 'reply_count', type: 'integer' }) replyCount: number;
  @Column({ name: 'created_at', type: 'timestamptz', insert: false }) createdAt: Date;
  @Column({ name: 'updated_at', type: 'timestamptz', insert: false }) updatedAt: Date;
  @Column({ name: 'last_reply_at', type: 'timestamptz', nullable: true }) lastReplyAt: Date | null;
  @Column({ name: 'closed_at', type: 'timestamptz', nullable: true }) closedAt: Date | null;
}
