import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { CatalogProduct, ProductSpecs, ProductType } from './catalogue';

interface Row {
  id: string;
  slug: string;
  name: string;
  type: ProductType;
  available: boolean;
  specs: ProductSpecs;
  prices: CatalogProduct['prices'] | null;
}

const SELECT = `
  SELECT p.id, p.slug, p.name, p.type, p.available, p.specs,
         (SELECT json_agg(json_build_object('billingCycle', pp.billing_cycle, 'price', pp.price::text, 'currency', pp.currency))
            FROM product_prices pp WHERE pp.product_id = p.id) AS prices
    FROM products p`;

/**
 * What other areas may ask about the catalogue, without its entities. Takes the caller's
 * transaction manager when there is one (on the embedded database a second connection would wait).
 */
@Injectable()
export class ProductCatalog {
  constructor(private readonly dataSource: DataSource) {}

  async findBySlug(slug: string, manager: EntityManager = this.dataSource.manager): Promise<CatalogProduct | null> {
    const rows: Row[] = await manager.query(`${SELECT} WHERE p.slug = $1`, [slug]);
    return rows[0] ? toProduct(rows[0]) : null;
  }

  /** The smallest available plan of a type. */
  async defaultFor(type: ProductType, manager: EntityManager = this.dataSource.manager): Promise<CatalogProduct | null> {
    const rows: Row[] = await manager.query(`${SELECT} WHERE p.type = $1 AND p.available ORDER BY p.position, p.id LIMIT 1`, [type]);
    return rows[0] ? toProduct(rows[0]) : null;
  }
}

function toProduct(row: Row): CatalogProduct {
  return {
    id: row.id,
    slug: row.slug,
    name: row.name,
    type: row.type,
    available: row.available,
    specs: row.specs,
    prices: row.prices ?? [],
  };
}
