import { ApiProperty } from '@nestjs/swagger';
import type { ZoneRow } from '../zones/zones.repository';

export class ZoneResponse {
  @ApiProperty({ format: 'uuid' })
  id: string;
  @ApiProperty({ example: 'example.com', description: 'Lower case, without the trailing dot; internationalised names in punycode (xn--).' })
  name: string;
  @ApiProperty({
    type: [String],
    example: ['ns1.example.net', 'ns2.example.net'],
    description: "The provider's nameservers: set them at the domain's registrar.",
  })
  nameservers: string[];
  @ApiProperty({ example: 2026112803, description: "The SOA serial; every change raises it (YYYYMMDDnn while a day's changes fit)." })
  serial: number;
  @ApiProperty({ format: 'date-time' })
  createdAt: string;

  static from(row: ZoneRow, nameservers: string[]): ZoneResponse {
    return { id: row.id, name: row.name, nameservers, serial: Number(row.serial), createdAt: row.createdAt };
  }
}
