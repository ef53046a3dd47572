import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayMinSize, ArrayUnique, IsArray, IsIn, IsISO8601, IsOptional, IsString, Length } from 'class-validator';
import { ALL_SCOPES, Scope, Trim } from '@app/core';

export class CreateApiKeyRequest {
  @ApiProperty({ minLength: 1, maxLength: 100, example: 'terraform', description: 'A name to recognise the key by.' })
  @Trim()
  @IsString()
  @Length(1, 100)
  name: string;

  @ApiPropertyOptional({
    enum: ALL_SCOPES,
    isArray: true,
    default: ['read', 'write'],
    description: '`read` allows GET requests; `write` allows everything.',
  })
  @IsOptional()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(2)
  @ArrayUnique()
  @IsIn(ALL_SCOPES, { each: true, message: 'each scope must be read or write' })
  scopes?: Scope[];

  @ApiPropertyOptional({
    format: 'date-time',
    example: '2027-01-01T00:00:00Z',
    description: 'When the key stops working; never if omitted.',
  })
  @IsOptional()
  @IsISO8601({ strict: true, strictSeparator: true }, { message: 'expiresAt must be an ISO 8601 date-time' })
  expiresAt?: string;
}
