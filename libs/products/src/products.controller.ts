import { Controller, Get, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiProblems, Paginated, PaginatedResponse, UuidParam } from '@app/core';
import { ListProductsQuery } from './dto/list-products.query';
import { ProductResponse } from './dto/product.response';
import { ProductsService } from './products.service';

const PaginatedProducts = PaginatedResponse(ProductResponse, 'PaginatedProducts');

@ApiTags('Products')
@ApiBearerAuth()
@Controller('api/products')
export class ProductsController {
  constructor(private readonly products: ProductsService) {}

  @Get()
  @ApiOperation({ summary: 'List the catalogue of plans and their prices', operationId: 'listProducts' })
  @ApiOkResponse({ type: PaginatedProducts })
  @ApiProblems(400, 401, 403, 429)
  list(@Query() query: ListProductsQuery): Promise<Paginated<ProductResponse>> {
    return this.products.list(query);
  }

  @Get(':id')
  @ApiOperation({ summary: 'Get a product', operationId: 'getProduct' })
  @ApiOkResponse({ type: ProductResponse })
  @ApiProblems(400, 401, 403, 404, 429)
  get(@UuidParam() id: string): Promise<ProductResponse> {
    return this.products.get(id);
  }
}
