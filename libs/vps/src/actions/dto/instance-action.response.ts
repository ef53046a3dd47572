import { ApiProperty } from '@nestjs/swagger';
import { ApiNullableRef } from '@app/core';
import type { ActionRow } from '../instance-actions.repository';
import { ACTION_STATUSES, ACTION_TYPES, ActionStatus, ActionType, SNAPSHOT_CONSISTENCIES, SnapshotConsistency } from '../../vps.types';

/** An action's `progress`, shared by VPS and volume actions. */
export const PROGRESS_PROPERTY = {
  type: 'integer',
  format: 'int32',
  minimum: 0,
  maximum: 100,
  example: 40,
  description:
    'How far the action is, 0-100: 0 while it waits to begin, 100 once it has succeeded, a coarse estimate per step in between that never goes back. A failed action keeps where it stopped.',
} as const;

/** An action's `step`, shared by VPS and volume actions. */
export const STEP_PROPERTY = {
  type: 'string',
  nullable: true,
  example: 'waiting up to 120 s for the guest to shut down',
  description: 'What the action is doing now, in a few words; null once it has ended.',
} as const;

export class ActionErrorResponse {
  @ApiProperty({ example: 'timeout', description: 'Stable machine-readable reason.' })
  code: string;
  @ApiProperty({ example: 'The hypervisor did not finish the action in time.' })
  message: string;
}

export class SnapshotActionResponse {
  @ApiProperty({ format: 'uuid', description: 'The image the snapshot becomes (GET /api/images/{id}); `creating` until the action ends.' })
  imageId: string;
  @ApiProperty({
    enum: SNAPSHOT_CONSISTENCIES,
    nullable: true,
    example: 'filesystem',
    description:
      "Once succeeded: `filesystem` when the guest's filesystems were frozen for the copy (qemu-guest-agent answered) or the machine was stopped; `crash` when the disk was copied as a sudden power loss would leave it. Null until then.",
  })
  consistency: SnapshotConsistency | null;
}

export class InstanceActionResponse {
  @ApiProperty({ format: 'uuid', description: 'Action id.' })
  id: string;
  @ApiProperty({ format: 'uuid', description: 'The VPS service the action is for.' })
  serviceId: string;
  @ApiProperty({ enum: ACTION_TYPES, example: 'start' })
  type: ActionType;
  @ApiProperty({ enum: ACTION_STATUSES, example: 'running', description: 'running until the hypervisor reports the outcome.' })
  status: ActionStatus;
  @ApiProperty({ format: 'date-time' })
  startedAt: string;
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true, description: 'Null while running.' })
  finishedAt: string | null;
  @ApiProperty(PROGRESS_PROPERTY)
  progress: number;
  @ApiProperty(STEP_PROPERTY)
  step: string | null;
  @ApiNullableRef(ActionErrorResponse, { description: 'Why the action failed; null otherwise.' })
  error: ActionErrorResponse | null;
  @ApiNullableRef(ActionErrorResponse, {
    description:
      'On success, how the hypervisor got there when it differs from what was asked (e.g. `forced_power_off`: the guest ignored the ACPI shutdown); null otherwise.',
  })
  notice: ActionErrorResponse | null;
  @ApiNullableRef(SnapshotActionResponse, { description: 'For a snapshot, the image it makes; null for other actions.' })
  snapshot: SnapshotActionResponse | null;

  static fromRow(row: ActionRow): InstanceActionResponse {
    return {
      id: row.id,
      serviceId: row.service_id,
      type: row.type,
      status: row.status,
      startedAt: row.started_at,
      finishedAt: row.finished_at,
      progress: row.progress,
      step: row.step,
      error: row.error_code ? { code: row.error_code, message: row.error_message ?? '' } : null,
      notice: row.notice_code ? { code: row.notice_code, message: row.notice_message ?? '' } : null,
      snapshot: row.snapshot_image_id ? { imageId: row.snapshot_image_id, consistency: row.consistency } : null,
    };
  }
}
