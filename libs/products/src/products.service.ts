import { Injectable } from '@nestjs/common';
import { Paginated, paginated, pageOffset, Problem } from '@app/core';
import { ListProductsQuery } from './dto/list-products.query';
import { ProductResponse } from './dto/product.response';
import { ProductsRepository } from './products.repository';

@Injectable()
export class ProductsService {
  constructor(private readonly products: ProductsRepository) {}

  async list(query: ListProductsQuery): Promise<Paginated<ProductResponse>> {
    const total = await this.products.count(query.type);
    // The catalogue is a few rows; an offset past it simply finds nothing.
    const offset = BigInt(pageOffset(query));
    const rows = offset >= BigInt(total) ? [] : await this.products.findPage(query.type, Number(offset), query.pageSize);
    return paginated(rows.map(ProductResponse.from), query, total);
  }

  async get(id: string): Promise<ProductResponse> {
    const product = await this.products.findById(id);
    if (!product) throw Problem.notFound('Product');
    return ProductResponse.from(product);
  }
}
