import { ApiProperty } from '@nestjs/swagger';
import { IsIP, IsString, MaxLength, ValidateIf } from 'class-validator';

export class SetReverseDnsRequest {
  @ApiProperty({ example: '203.0.113.17', description: "One of the VPS's addresses (`instance.addresses[].ip`)." })
  @IsIP()
  ip: string;

  @ApiProperty({
    type: 'string',
    nullable: true,
    maxLength: 254,
    example: 'mail.example.com',
    description: 'The host name the address resolves back to; null resets it to the default (`<vps hostname>.<provider domain>`, or none).',
  })
  @ValidateIf((_, value) => value !== null)
  @IsString()
  @MaxLength(254)
  ptr: string | null;
}
