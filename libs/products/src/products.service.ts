import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { Paginated, paginated, pageOffset, Problem } from '@app/core';
import { ListProductsQuery } from './dto/list-products.query';
import { ProductResponse } from './dto/product.response';
import { Product } from './product.entity';

@Injectable()
export class ProductsService {
  constructor(@InjectRepository(Product) private readonly products: Repository<Product>) {}

  async list(query: ListProductsQuery): Promise<Paginated<ProductResponse>> {
    const where = query.type ? { type: query.type } : {};
    const total = await this.products.count({ where });
    // The catalogue is a few rows; an offset past it simply finds nothing.
    const offset = BigInt(pageOffset(query));
    const rows =
      offset >= BigInt(total)
        ? []
        : await this.products.find({
            where,
            relations: { prices: true },
            order: { position: 'ASC', id: 'ASC' },
            skip: Number(offset),
            take: query.pageSize,
          });
    return paginated(rows.map(ProductResponse.from), query, total);
  }

  async get(id: string): Promise<ProductResponse> {
    const product = await this.products.findOne({ where: { id }, relations: { prices: true } });
    if (!product) throw Problem.notFound('Product');
    return ProductResponse.from(product);
  }
}
