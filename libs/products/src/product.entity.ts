import { Column, CreateDateColumn, Entity, OneToMany, PrimaryColumn } from 'typeorm';
import type { ProductSpecs, ProductType } from './catalogue';
import { ProductPrice } from './product-price.entity';

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
