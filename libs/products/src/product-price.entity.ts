import { Column, Entity, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import type { BillingCycle } from './catalogue';
import { Product } from './product.entity';

@Entity('product_prices')
export class ProductPrice {
  @PrimaryColumn({ name: 'product_id', type: 'uuid' })
  productId: string;

  @PrimaryColumn({ name: 'billing_cycle', type: 'varchar', length: 20 })
  billingCycle: BillingCycle;

  @PrimaryColumn({ type: 'char', length: 3 })
  currency: string;

  /** numeric(12,4): the driver gives a decimal string. */
  @Column({ type: 'numeric', precision: 12, scale: 4 })
  price: string;

  @ManyToOne(() => Product, (product) => product.prices, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'product_id' })
  product: Product;
}
