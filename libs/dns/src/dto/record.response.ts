import { ApiProperty } from '@nestjs/swagger';
import { RECORD_TYPES, RecordType } from '../provider/dns-provider';
import type { RecordRow } from '../records/records.repository';

export class RecordResponse {
  @ApiProperty({ format: 'uuid' })
  id: string;
  @ApiProperty({ example: 'www', description: 'Relative to the zone; `@` is the zone itself.' })
  name: string;
  @ApiProperty({ enum: RECORD_TYPES, example: 'A' })
  type: RecordType;
  @ApiProperty({ example: 3600, description: 'Seconds; every record of one name and type has the same.' })
  ttl: number;
  @ApiProperty({
    example: '203.0.113.10',
    description:
      'The record\'s data: an address, a target name (absolute, with the trailing dot), a TXT\'s text as written, a CAA as `0 issue "letsencrypt.org"`.',
  })
  value: string;
  @ApiProperty({ type: 'integer', format: 'int32', nullable: true, example: null, description: 'MX and SRV only.' })
  priority: number | null;
  @ApiProperty({ type: 'integer', format: 'int32', nullable: true, example: null, description: 'SRV only.' })
  weight: number | null;
  @ApiProperty({ type: 'integer', format: 'int32', nullable: true, example: null, description: 'SRV only.' })
  port: number | null;

  static from(row: RecordRow): RecordResponse {
    const { id, name, type, ttl, value, priority, weight, port } = row;
    return { id, name, type, ttl, value, priority, weight, port };
  }
}
