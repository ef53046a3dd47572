import { ApiProperty } from '@nestjs/swagger';
import { IsIn, IsInt, IsNumber, Max, Min } from 'class-validator';
import { ALERT_TYPES, AlertType, MAX_BYTES_PER_SECOND } from '../alert-rules';

export class CreateInstanceAlertRequest {
  @ApiProperty({
    enum: ALERT_TYPES,
    example: 'cpu',
    description:
      "What is watched: `cpu` (percent of all the VPS's vCPUs), `network.in`/`network.out` (bytes/s over all its interfaces), `disk.write` (bytes/s over all its disks).",
  })
  @IsIn(ALERT_TYPES)
  type: AlertType;

  @ApiProperty({
    minimum: 0,
    maximum: MAX_BYTES_PER_SECOND,
    example: 90,
    description: 'The threshold: 0-100 for `cpu` (percent), bytes/s for the others.',
  })
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(0)
  @Max(MAX_BYTES_PER_SECOND)
  above: number;

  @ApiProperty({ type: 'integer', minimum: 1, maximum: 60, example: 5, description: 'Minutes every point must stay above the threshold.' })
  @IsInt()
  @Min(1)
  @Max(60)
  forMinutes: number;
}
