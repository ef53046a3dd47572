import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';
import type { BillingCycle } from '@app/products';
import type { ServiceStatus, ServiceType } from './service.types';

/** Reads of services go through the SQL in services.queries.ts (projection, no hydration). */
@Entity('services')
export class Service {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ name: 'account_id', type: 'uuid' })
  accountId: string;

  @Column({ name: 'product_id', type: 'uuid' })
  productId: string;

  @Column({ type: 'varchar', length: 100 })
  name: string;

  @Column({ type: 'varchar', length: 20 })
  type: ServiceType;

  @Column({ type: 'varchar', length: 20 })
  status: ServiceStatus;

  @Column({ type: 'numeric', precision: 12, scale: 4 })
  price: string;

  @Column({ type: 'char', length: 3 })
  currency: string;

  @Column({ name: 'billing_cycle', type: 'varchar', length: 20 })
  billingCycle: BillingCycle;

  @Column({ name: 'next_due_date', type: 'timestamptz', nullable: true })
  nextDueDate: Date | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
