import { ApiProperty } from '@nestjs/swagger';
import { ApiNullableRef } from '@app/core';
import { SNAPSHOT_CONSISTENCIES, SnapshotConsistency } from '../../vps.types';
import type { BackupRow } from '../backups.repository';

export class BackupErrorResponse {
  @ApiProperty({ example: 'interrupted' })
  code: string;
  @ApiProperty({ example: 'The backup was interrupted (its process stopped or the store stopped answering); the next one starts afresh.' })
  message: string;
}

export class BackupResponse {
  @ApiProperty({ format: 'uuid' })
  id: string;
  @ApiProperty({ format: 'date-time', description: 'When the copy began.' })
  createdAt: string;
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true, description: 'When it ended; null while it runs.' })
  finishedAt: string | null;
  @ApiProperty({
    type: 'integer',
    format: 'int64',
    nullable: true,
    example: 734003200,
    description: 'Bytes stored (a qcow2 of the disk); null until available.',
  })
  sizeBytes: number | null;
  @ApiProperty({
    enum: ['running', 'available', 'failed'],
    description: 'Only an `available` backup can be restored or turned into an image; an interrupted one is `failed`, never `available`.',
  })
  status: 'running' | 'available' | 'failed';
  @ApiProperty({
    enum: SNAPSHOT_CONSISTENCIES,
    nullable: true,
    description:
      '`filesystem`: the guest agent froze the filesystems for the copy (or the machine was stopped); `crash`: as after a power cut. Null until available.',
  })
  consistency: SnapshotConsistency | null;
  @ApiProperty({ enum: ['schedule', 'operator'], description: 'The daily schedule, or an operator running one now.' })
  trigger: 'schedule' | 'operator';
  @ApiNullableRef(BackupErrorResponse, { description: 'Why a failed backup failed; null otherwise.' })
  error: BackupErrorResponse | null;

  static fromRow(row: BackupRow): BackupResponse {
    return {
      id: row.id,
      createdAt: row.created_at,
      finishedAt: row.finished_at,
      sizeBytes: row.size_bytes === null ? null : Number(row.size_bytes),
      status: row.status,
      consistency: row.consistency,
      trigger: row.trigger,
      error: row.status === 'failed' ? { code: row.error_code ?? 'backup_failed', message: row.error_message ?? '' } : null,
    };
  }
}
