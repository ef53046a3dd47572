import { ApiProperty } from '@nestjs/swagger';
import { ApiNullableRef } from '@app/core';
import { ActionErrorResponse, PROGRESS_PROPERTY, STEP_PROPERTY } from '../../actions/dto/instance-action.response';
import type { VolumeActionRow } from '../volumes.repository';
import { VOLUME_ACTION_STATUSES, VOLUME_ACTION_TYPES, VolumeActionStatus, VolumeActionType } from '../volume.types';

export class VolumeActionResponse {
  @ApiProperty({ format: 'uuid', description: 'Action id.' })
  id: string;
  @ApiProperty({ format: 'uuid', description: 'The volume service the action is for.' })
  serviceId: string;
  @ApiProperty({ enum: VOLUME_ACTION_TYPES, example: 'attach' })
  type: VolumeActionType;
  @ApiProperty({ enum: VOLUME_ACTION_STATUSES, example: 'running', description: 'running until the volume is where the action puts it.' })
  status: VolumeActionStatus;
  @ApiProperty({
    type: 'string',
    format: 'uuid',
    nullable: true,
    description: 'The VPS service attached to (attach) or detached from (detach); null for a resize.',
  })
  vpsServiceId: string | null;
  @ApiProperty({
    type: 'integer',
    format: 'int32',
    nullable: true,
    example: 200,
    description: 'The new size in GiB (resize); null otherwise.',
  })
  sizeGb: number | null;
  @ApiProperty({ format: 'date-time' })
  startedAt: string;
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true, description: 'Null while running.' })
  finishedAt: string | null;
  @ApiProperty(PROGRESS_PROPERTY)
  progress: number;
  @ApiProperty({ ...STEP_PROPERTY, example: 'attaching the volume to the VPS' })
  step: string | null;
  @ApiNullableRef(ActionErrorResponse, { description: 'Why the action failed (the volume stays as it was before); null otherwise.' })
  error: ActionErrorResponse | null;

  static fromRow(row: VolumeActionRow): VolumeActionResponse {
    return {
      id: row.id,
      serviceId: row.serviceId,
      type: row.type,
      status: row.status,
      vpsServiceId: row.targetServiceId,
      sizeGb: row.sizeGb,
      startedAt: row.startedAt,
      finishedAt: row.finishedAt,
      progress: row.progress,
      step: row.step,
      error: row.errorCode ? { code: row.errorCode, message: row.errorMessage ?? '' } : null,
    };
  }
}
