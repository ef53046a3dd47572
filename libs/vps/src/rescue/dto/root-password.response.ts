import { ApiProperty } from '@nestjs/swagger';

export class RootPasswordResponse {
  @ApiProperty({
    example: 'q7Hm2xKpW4tRz9LbN3cV',
    pattern: '^[A-HJ-NP-Za-km-z2-9]{20}$',
    description: "root's new password, set in the running guest; shown this once and stored nowhere.",
  })
  rootPassword: string;
}
