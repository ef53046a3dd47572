export const PRODUCT_TYPES = ['vps', 'object_storage', 'volume'] as const;
export type ProductType = (typeof PRODUCT_TYPES)[number];

/** WHMCS's cycles, in the order a price list shows them. */
export const BILLING_CYCLES = [
  'hourly',
  'monthly',
  'quarterly',
  'semi_annually',
  'annually',
  'biennially',
  'triennially',
  'one_time',
] as const;
export type BillingCycle = (typeof BILLING_CYCLES)[number];

export interface VpsSpecs {
  vcpus: number;
  memoryMb: number;
  diskGb: number;
  transferTb: number;
}

export interface ObjectStorageSpecs {
  storageGb: number;
  transferTb: number;
  /** The gateway user's object quota. */
  maxObjects: number;
  /** Buckets the customer may have. */
  maxBuckets: number;
}

/** A volume's product prices one GiB: a volume costs that times its size (within these bounds, in GiB). */
export interface VolumeSpecs {
  pricePerGb: true;
  minSizeGb: number;
  maxSizeGb: number;
}

export type ProductSpecs = VpsSpecs | ObjectStorageSpecs | VolumeSpecs;

export interface CatalogPrice {
  billingCycle: BillingCycle;
  /** Decimal string as stored (numeric(12,4)); converted to a number only at the edge. */
  price: string;
  currency: string;
}

/** What other areas may know about a product (services take their price from it). */
export interface CatalogProduct {
  id: string;
  slug: string;
  name: string;
  type: ProductType;
  available: boolean;
  specs: ProductSpecs;
  prices: CatalogPrice[];
}
