import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { DataSource, EntityManager, Repository } from 'typeorm';
import { sqlFirst } from '@app/core';
import { CatalogProduct, ProductType } from './catalogue.types';
import { Product } from './product.entity';

/** A catalogue row: the product with its prices aggregated (null when it has none). */
type CatalogRow = Omit<CatalogProduct, 'prices'> & { prices: CatalogProduct['prices'] | null };

const SELECT = `
  SELECT p.id, p.slug, p.name, p.type, p.available, p.specs,
         (SELECT json_agg(json_build_object('billingCycle', pp.billing_cycle, 'price', pp.price::text, 'currency', pp.currency))
            FROM product_prices pp WHERE pp.product_id = p.id) AS prices
    FROM products p`;

/**
 * The catalogue: the public list and detail through TypeORM's `Repository<Product>`, and the
 * lookups other areas make (through `ProductCatalog`), one statement each, the prices aggregated in
 * it. Their optional manager comes last: inside the caller's transaction when given (on the
 * embedded database a second connection would wait).
 */
@Injectable()
export class ProductsRepository {
  constructor(
    private readonly dataSource: DataSource,
    @InjectRepository(Product) private readonly products: Repository<Product>,
  ) {}

  count(type: ProductType | undefined): Promise<number> {
    return this.products.count({ where: type ? { type } : {} });
  }

  /** A page of the catalogue in its order, with prices. */
  findPage(type: ProductType | undefined, skip: number, take: number): Promise<Product[]> {
    return this.products.find({
      where: type ? { type } : {},
      relations: { prices: true },
      order: { position: 'ASC', id: 'ASC' },
      skip,
      take,
    });
  }

  findById(id: string): Promise<Product | null> {
    return this.products.findOne({ where: { id }, relations: { prices: true } });
  }

  async findBySlug(slug: string, manager: EntityManager = this.dataSource.manager): Promise<CatalogProduct | null> {
    const row = await sqlFirst<CatalogRow>(manager, `${SELECT} WHERE p.slug = $1`, [slug]);
    return row ? toProduct(row) : null;
  }

  /** The smallest available plan of a type. */
  async findDefaultFor(type: ProductType, manager: EntityManager = this.dataSource.manager): Promise<CatalogProduct | null> {
    const row = await sqlFirst<CatalogRow>(manager, `${SELECT} WHERE p.type = $1 AND p.available ORDER BY p.position, p.id LIMIT 1`, [
      type,
    ]);
    return row ? toProduct(row) : null;
  }
}

function toProduct(row: CatalogRow): CatalogProduct {
  return { ...row, prices: row.prices ?? [] };
}
