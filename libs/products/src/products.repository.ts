import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { CatalogProduct, ProductType } from './catalogue';

/** A catalogue row: the product with its prices aggregated (null when it has none). */
type CatalogRow = Omit<CatalogProduct, 'prices'> & { prices: CatalogProduct['prices'] | null };

const SELECT = `
  SELECT p.id, p.slug, p.name, p.type, p.available, p.specs,
         (SELECT json_agg(json_build_object('billingCycle', pp.billing_cycle, 'price', pp.price::text, 'currency', pp.currency))
            FROM product_prices pp WHERE pp.product_id = p.id) AS prices
    FROM products p`;

/**
 * The catalogue lookups other areas make (through `ProductCatalog`): one statement each, the prices
 * aggregated in it. The public list and detail routes use TypeORM's `Repository<Product>`.
 * An optional manager comes last: inside the caller's transaction when given (on the embedded
 * database a second connection would wait).
 */
@Injectable()
export class ProductsRepository {
  constructor(private readonly dataSource: DataSource) {}

  async findBySlug(slug: string, manager: EntityManager = this.dataSource.manager): Promise<CatalogProduct | null> {
    const rows: CatalogRow[] = await manager.query(`${SELECT} WHERE p.slug = $1`, [slug]);
    return rows[0] ? toProduct(rows[0]) : null;
  }

  /** The smallest available plan of a type. */
  async findDefaultFor(type: ProductType, manager: EntityManager = this.dataSource.manager): Promise<CatalogProduct | null> {
    const rows: CatalogRow[] = await manager.query(`${SELECT} WHERE p.type = $1 AND p.available ORDER BY p.position, p.id LIMIT 1`, [type]);
    return rows[0] ? toProduct(rows[0]) : null;
  }
}

function toProduct(row: CatalogRow): CatalogProduct {
  return { ...row, prices: row.prices ?? [] };
}
