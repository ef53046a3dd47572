import { ApiProperty } from '@nestjs/swagger';
import type { GatewayBucket } from '../object-storage-provider';

export class BucketResponse {
  @ApiProperty({ example: 'backups', description: 'Bucket name.' })
  name: string;
  @ApiProperty({ type: 'integer', format: 'int64', example: 52428800, description: 'Bytes stored, as the gateway counts them.' })
  sizeBytes: number;
  @ApiProperty({ type: 'integer', format: 'int64', example: 1200, description: 'Objects stored.' })
  objects: number;
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true, description: 'When the bucket was made, if the gateway says.' })
  createdAt: string | null;

  static from(bucket: GatewayBucket): BucketResponse {
    return { name: bucket.name, sizeBytes: bucket.sizeBytes, objects: bucket.objects, createdAt: bucket.createdAt };
  }
}
