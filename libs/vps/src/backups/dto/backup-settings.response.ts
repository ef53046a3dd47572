import { ApiProperty } from '@nestjs/swagger';

/** Whether a VPS is backed up daily; also the `backups` of its instance summary. */
export class BackupSettingsResponse {
  @ApiProperty({ example: true })
  enabled: boolean;
  @ApiProperty({
    type: 'string',
    format: 'date-time',
    nullable: true,
    description: "When the next daily backup is due (each VPS has its own slot in the operator's window); null when disabled.",
  })
  nextRunAt: string | null;
  @ApiProperty({
    type: 'integer',
    format: 'int32',
    example: 7,
    description: 'Backups kept; the oldest goes when a new one is made (BACKUP_RETENTION).',
  })
  retention: number;
}
