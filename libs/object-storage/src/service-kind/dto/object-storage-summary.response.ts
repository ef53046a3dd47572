import { ApiProperty } from '@nestjs/swagger';
import { declareServicePart } from '@app/services';

export const OBJECT_STORAGE_STATES = ['pending', 'active', 'suspended', 'closed', 'purged'] as const;

export class ObjectStorageSummaryResponse {
  @ApiProperty({
    enum: OBJECT_STORAGE_STATES,
    example: 'active',
    description:
      'The storage gateway user: `pending` until the gateway has applied the latest change (provisioning, a status change or a new key; retried while the gateway is unreachable), then `active`, `suspended` (S3 answers 403), `closed` (terminated: keys removed) or `purged` (user and data deleted).',
  })
  state: (typeof OBJECT_STORAGE_STATES)[number];
  @ApiProperty({
    type: 'integer',
    format: 'int64',
    nullable: true,
    example: 52428800,
    description: 'Bytes stored, as the gateway last reported; null before the first reading.',
  })
  usedBytes: number | null;
  @ApiProperty({
    type: 'integer',
    format: 'int64',
    nullable: true,
    example: 1200,
    description: 'Objects stored; null before the first reading.',
  })
  objects: number | null;
  @ApiProperty({ type: 'integer', format: 'int32', nullable: true, example: 2, description: 'Buckets; null before the first reading.' })
  buckets: number | null;
  @ApiProperty({ type: 'integer', format: 'int64', example: 250000000000, description: 'Quota in bytes (from the product).' })
  quotaBytes: number;
  @ApiProperty({ type: 'integer', format: 'int64', example: 5000000, description: 'Quota in objects (from the product).' })
  quotaObjects: number;
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true, description: 'When usage was last read from the gateway.' })
  usageUpdatedAt: string | null;
}

/** An object storage service's part of the service response. */
export const OBJECT_STORAGE_PART = declareServicePart({
  type: 'object_storage',
  key: 'objectStorage',
  response: ObjectStorageSummaryResponse,
  description: 'The storage of an object storage service (quota, usage); null for other types.',
});

declare module '@app/services' {
  interface ServiceParts {
    objectStorage: ObjectStorageSummaryResponse;
  }
}
