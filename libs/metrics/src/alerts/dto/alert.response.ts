import { ApiProperty } from '@nestjs/swagger';
import { isoTimestamp } from '@app/core';
import { ALERT_TYPES, AlertType } from '../alert-rules';
import type { AlertRow } from '../alerts.repository';

export class InstanceAlertResponse {
  @ApiProperty({ format: 'uuid', description: 'Alert id.' })
  id: string;
  @ApiProperty({ format: 'uuid', description: 'The VPS it watches.' })
  serviceId: string;
  @ApiProperty({ enum: ALERT_TYPES, example: 'cpu', description: 'What is watched.' })
  type: AlertType;
  @ApiProperty({ example: 90, description: 'The threshold: percent for `cpu`, bytes/s for the others.' })
  above: number;
  @ApiProperty({ type: 'integer', example: 5, description: 'Minutes every point must stay above the threshold.' })
  forMinutes: number;
  @ApiProperty({
    enum: ['ok', 'firing'],
    description:
      '`firing` from the check that saw every point of the window above the threshold until one sees the latest point at or below it.',
  })
  state: 'ok' | 'firing';
  @ApiProperty({ format: 'date-time', description: 'When the state last changed (the creation time until then).' })
  stateChangedAt: string;
  @ApiProperty({ format: 'date-time', description: 'When the alert was created.' })
  createdAt: string;

  static from(row: AlertRow): InstanceAlertResponse {
    return {
      id: row.id,
      serviceId: row.service_id,
      type: row.type,
      above: Number(row.above),
      forMinutes: row.for_minutes,
      state: row.state,
      stateChangedAt: isoTimestamp(row.state_changed_at),
      createdAt: isoTimestamp(row.created_at),
    };
  }
}
