import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { CatalogProduct, ProductType } from './catalogue.types';
import { ProductsRepository } from './products.repository';

/**
 * What other areas may ask about the catalogue, without its entities. Takes the caller's
 * transaction manager when there is one (on the embedded database a second connection would wait).
 */
@Injectable()
export class ProductCatalog {
  constructor(private readonly products: ProductsRepository) {}

  findBySlug(slug: string, manager?: EntityManager): Promise<CatalogProduct | null> {
    return this.products.findBySlug(slug, manager);
  }

  /** The smallest available plan of a type. */
  defaultFor(type: ProductType, manager?: EntityManager): Promise<CatalogProduct | null> {
    return this.products.findDefaultFor(type, manager);
  }
}
