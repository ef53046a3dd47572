import { ApiProperty } from '@nestjs/swagger';
import { ApiNullableRef } from '@app/core';
import { IMAGE_STATUSES, IMAGE_TYPES, ImageRow, ImageStatus, ImageType } from '../image.types';

export class ImageSourceResponse {
  @ApiProperty({ format: 'uuid', description: 'The VPS service whose disk the snapshot copies (it may be terminated since).' })
  serviceId: string;
}

export class ImageResponse {
  @ApiProperty({ format: 'uuid' })
  id: string;
  @ApiProperty({ example: 'debian-12', description: 'What `image` takes when rebuilding a VPS (the id works too).' })
  slug: string;
  @ApiProperty({ example: 'Debian 12' })
  name: string;
  @ApiProperty({
    enum: IMAGE_TYPES,
    example: 'system',
    description: "`system`: the operator's, offered to every account; `snapshot`: this account's own, made from one of its VPSes.",
  })
  type: ImageType;
  @ApiProperty({ example: 'debian' })
  osFamily: string;
  @ApiProperty({ example: '12' })
  osVersion: string;
  @ApiProperty({ example: 2, description: 'Smallest disk, in GB (GiB), the image fits on.' })
  minDiskGb: number;
  @ApiProperty({ example: 338624512, description: 'Bytes the image takes on the hypervisor (0 while a snapshot is being made).' })
  sizeBytes: number;
  @ApiNullableRef(ImageSourceResponse, { description: 'For a snapshot, the VPS it was made from; null for a system image.' })
  createdFrom: ImageSourceResponse | null;
  @ApiProperty({
    enum: IMAGE_STATUSES,
    example: 'available',
    description:
      'Only available images can be installed. System images are shown once available; a snapshot from the moment it is asked for (`creating` until its action ends).',
  })
  status: ImageStatus;
  @ApiProperty({ format: 'date-time' })
  createdAt: string;

  static fromRow(row: ImageRow): ImageResponse {
    return {
      id: row.id,
      slug: row.slug,
      name: row.name,
      type: row.type,
      osFamily: row.os_family,
      osVersion: row.os_version,
      minDiskGb: Number(row.min_disk_gb),
      sizeBytes: Number(row.size_bytes),
      createdFrom: row.type === 'snapshot' && row.created_from_service_id ? { serviceId: row.created_from_service_id } : null,
      status: row.status,
      createdAt: row.created_at,
    };
  }
}
