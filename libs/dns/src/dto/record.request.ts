import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsInt, IsOptional, IsString, Max, MaxLength, Min, ValidateIf } from 'class-validator';
import { RECORD_TYPES, RecordType } from '../provider/dns-provider';
import { DEFAULT_TTL, MAX_TTL, MIN_TTL } from '../records/dns-record';

const VALUE_MAX = 4096;

class RecordFields {
  @ApiPropertyOptional({ type: 'integer', minimum: MIN_TTL, maximum: MAX_TTL, default: DEFAULT_TTL, description: 'Seconds.' })
  @IsOptional()
  @IsInt()
  @Min(MIN_TTL)
  @Max(MAX_TTL)
  ttl?: number;

  @ApiPropertyOptional({
    type: 'integer',
    format: 'int32',
    minimum: 0,
    maximum: 65535,
    nullable: true,
    example: 10,
    description: 'Required for MX and SRV.',
  })
  @ValidateIf((_, value) => value !== null && value !== undefined)
  @IsInt()
  @Min(0)
  @Max(65535)
  priority?: number | null;

  @ApiPropertyOptional({ type: 'integer', format: 'int32', minimum: 0, maximum: 65535, nullable: true, description: 'Required for SRV.' })
  @ValidateIf((_, value) => value !== null && value !== undefined)
  @IsInt()
  @Min(0)
  @Max(65535)
  weight?: number | null;

  @ApiPropertyOptional({ type: 'integer', format: 'int32', minimum: 0, maximum: 65535, nullable: true, description: 'Required for SRV.' })
  @ValidateIf((_, value) => value !== null && value !== undefined)
  @IsInt()
  @Min(0)
  @Max(65535)
  port?: number | null;
}

export class CreateRecordRequest extends RecordFields {
  @ApiProperty({
    maxLength: 253,
    example: 'www',
    description:
      '`@` (or empty) for the zone itself, a name relative to it (`www`, `*.dev`, `_dmarc`), or an absolute name within it ending in a dot.',
  })
  @IsString()
  @MaxLength(254)
  name: string;

  @ApiProperty({ enum: RECORD_TYPES, example: 'A' })
  @IsIn(RECORD_TYPES)
  type: RecordType;

  @ApiProperty({
    maxLength: VALUE_MAX,
    example: '203.0.113.10',
    description:
      'The data: an address (A, AAAA); a host name (CNAME, NS, MX and SRV targets; taken as absolute); any text for TXT (quoted and split by the API); `0 issue "letsencrypt.org"` for CAA.',
  })
  @IsString()
  @MaxLength(VALUE_MAX)
  value: string;
}

export class UpdateRecordRequest extends RecordFields {
  @ApiPropertyOptional({ maxLength: 253, example: 'www' })
  @IsOptional()
  @IsString()
  @MaxLength(254)
  name?: string;

  @ApiPropertyOptional({ enum: RECORD_TYPES, description: 'Changing the type clears priority, weight and port unless they are sent too.' })
  @IsOptional()
  @IsIn(RECORD_TYPES)
  type?: RecordType;

  @ApiPropertyOptional({ maxLength: VALUE_MAX, example: '203.0.113.11' })
  @IsOptional()
  @IsString()
  @MaxLength(VALUE_MAX)
  value?: string;
}
