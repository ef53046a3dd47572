import { ApiProperty } from '@nestjs/swagger';
import { IMAGE_STATUSES, ImageRow, ImageStatus } from '../image.types';

export class ImageResponse {
  @ApiProperty({ format: 'uuid' })
  id: string;
  @ApiProperty({ example: 'debian-12', description: 'What `image` takes when rebuilding a VPS (the id works too).' })
  slug: string;
  @ApiProperty({ example: 'Debian 12' })
  name: string;
  @ApiProperty({ example: 'debian' })
  osFamily: string;
  @ApiProperty({ example: '12' })
  osVersion: string;
  @ApiProperty({ example: 2, description: 'Smallest disk, in GB (GiB), the image fits on.' })
  minDiskGb: number;
  @ApiProperty({
    enum: IMAGE_STATUSES,
    example: 'available',
    description:
      'Only available images can be installed, and only they are listed and shown to customers (an image still uploading is not).',
  })
  status: ImageStatus;
  @ApiProperty({ format: 'date-time' })
  createdAt: string;

  static fromRow(row: ImageRow): ImageResponse {
    return {
      id: row.id,
      slug: row.slug,
      name: row.name,
      osFamily: row.os_family,
      osVersion: row.os_version,
      minDiskGb: Number(row.min_disk_gb),
      status: row.status,
      createdAt: row.created_at,
    };
  }
}
