import { ApiProperty } from '@nestjs/swagger';
import { IsInt, IsUUID, Max, Min } from 'class-validator';

export class AttachVolumeRequest {
  @ApiProperty({ format: 'uuid', description: "The VPS service to attach to: of this account and the volume's region." })
  @IsUUID('all')
  serviceId: string;
}

export class ResizeVolumeRequest {
  @ApiProperty({
    type: 'integer',
    format: 'int32',
    minimum: 1,
    maximum: 10240,
    example: 200,
    description: "The new size in GiB: larger than the current one (volumes grow, never shrink), at most the product's maximum.",
  })
  @IsInt()
  @Min(1)
  @Max(10240)
  sizeGb: number;
}
