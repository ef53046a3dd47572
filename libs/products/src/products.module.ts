import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ProductCatalog } from './product-catalog';
import { Product, ProductPrice } from './product.entity';
import { ProductsController } from './products.controller';
import { ProductsRepository } from './products.repository';
import { ProductsService } from './products.service';

@Module({
  imports: [TypeOrmModule.forFeature([Product, ProductPrice])],
  controllers: [ProductsController],
  providers: [ProductsService, ProductsRepository, ProductCatalog],
  exports: [ProductCatalog],
})
export class ProductsModule {}
