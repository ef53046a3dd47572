import { Column, CreateDateColumn, Entity, JoinColumn, ManyToOne, OneToMany, PrimaryColumn } from 'typeorm';
import type { BillingCycle, ProductSpecs, ProductType } from './catalogue.types';

@Entity('products')
export class Product {
  @PrimaryColumn('uuid')
  id: string;

  @Column({ type: 'varchar', length: 64 })
  slug: string;

  @Column({ type: 'varchar', length: 100 })
  name: string;

  @Column({ type: 'varchar', length: 20 })
  type: ProductType;

  @Column({ type: 'text' })
  description: string;

  @Column({ type: 'jsonb' })
  specs: ProductSpecs;

  @Column({ type: 'boolean' })
  available: boolean;

  @Column({ type: 'integer' })
  position: number;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @OneToMany(() => ProductPrice, (price) => price.product)
  prices: ProductPrice[];
}

/** A product's price per billing cycle and currency (in this file: the two entities name each other). */
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
