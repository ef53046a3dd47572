import { ApiExtraModels, ApiProperty, getSchemaPath } from '@nestjs/swagger';
import { BILLING_CYCLES, BillingCycle, PRODUCT_TYPES, ProductSpecs, ProductType } from '../catalogue.types';
import { Product } from '../product.entity';

export class VpsSpecsResponse {
  @ApiProperty({ type: 'integer', example: 2, description: 'Virtual CPU cores.' })
  vcpus: number;
  @ApiProperty({ type: 'integer', example: 4096, description: 'Memory in MiB.' })
  memoryMb: number;
  @ApiProperty({ type: 'integer', example: 80, description: 'Disk in GB.' })
  diskGb: number;
  @ApiProperty({ example: 3, description: 'Included outbound traffic per month, in TB.' })
  transferTb: number;
}

export class ObjectStorageSpecsResponse {
  @ApiProperty({ type: 'integer', example: 1000, description: 'Included storage in GB.' })
  storageGb: number;
  @ApiProperty({ example: 3, description: 'Included outbound traffic per month, in TB.' })
  transferTb: number;
  @ApiProperty({ type: 'integer', example: 20000000, description: 'Objects the service may hold.' })
  maxObjects: number;
  @ApiProperty({ type: 'integer', example: 500, description: 'Buckets the service may have.' })
  maxBuckets: number;
}

export class VolumeSpecsResponse {
  @ApiProperty({ enum: [true], example: true, description: 'The prices are per GiB: a volume costs them times its size.' })
  pricePerGb: true;
  @ApiProperty({ type: 'integer', example: 10, description: 'Smallest volume, in GiB.' })
  minSizeGb: number;
  @ApiProperty({ type: 'integer', example: 10240, description: 'Largest volume, in GiB (also the most it can grow to).' })
  maxSizeGb: number;
}

export class ProductPriceResponse {
  @ApiProperty({ enum: BILLING_CYCLES, example: 'monthly', description: 'Billing cycle this price is for.' })
  billingCycle: BillingCycle;
  @ApiProperty({ example: 9.99, description: 'Price per cycle (per hour for hourly), excluding VAT.' })
  price: number;
  @ApiProperty({ example: 'EUR', description: 'ISO 4217 currency code.' })
  currency: string;
}

@ApiExtraModels(VpsSpecsResponse, ObjectStorageSpecsResponse, VolumeSpecsResponse)
export class ProductResponse {
  @ApiProperty({ format: 'uuid', description: 'Product id.' })
  id: string;
  @ApiProperty({ example: 'vps-m', description: 'Stable, readable identifier.' })
  slug: string;
  @ApiProperty({ example: 'VPS M' })
  name: string;
  @ApiProperty({ enum: PRODUCT_TYPES, example: 'vps', description: 'Kind of service this product creates.' })
  type: ProductType;
  @ApiProperty({ example: 'Balanced plan for databases and application servers.' })
  description: string;
  @ApiProperty({
    oneOf: [
      { $ref: getSchemaPath(VpsSpecsResponse) },
      { $ref: getSchemaPath(ObjectStorageSpecsResponse) },
      { $ref: getSchemaPath(VolumeSpecsResponse) },
    ],
    description:
      'Resources: for a VPS {vcpus, memoryMb, diskGb, transferTb}, for object storage {storageGb, transferTb, maxObjects, maxBuckets}, for a volume {pricePerGb, minSizeGb, maxSizeGb} (its prices are per GiB).',
  })
  specs: ProductSpecs;
  @ApiProperty({ type: () => [ProductPriceResponse], description: 'Prices per billing cycle.' })
  prices: ProductPriceResponse[];
  @ApiProperty({ example: true, description: 'False for plans that can no longer be ordered.' })
  available: boolean;

  static from(product: Product): ProductResponse {
    const prices = [...(product.prices ?? [])].sort(
      (a, b) => BILLING_CYCLES.indexOf(a.billingCycle) - BILLING_CYCLES.indexOf(b.billingCycle) || a.currency.localeCompare(b.currency),
    );
    return {
      id: product.id,
      slug: product.slug,
      name: product.name,
      type: product.type,
      description: product.description,
      specs: product.specs,
      prices: prices.map((p) => ({ billingCycle: p.billingCycle, price: Number(p.price), currency: p.currency })),
      available: product.available,
    };
  }
}
