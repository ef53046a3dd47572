import { ApiProperty } from '@nestjs/swagger';
import { IsString, Length } from 'class-validator';
import { Trim } from '@app/core';

export class CreateZoneRequest {
  @ApiProperty({
    minLength: 1,
    maxLength: 254,
    example: 'example.com',
    description: 'The domain (a trailing dot and any case are fine; internationalised names are stored in punycode).',
  })
  @Length(1, 254)
  @IsString()
  @Trim()
  name: string;
}
