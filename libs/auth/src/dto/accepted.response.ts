import { ApiProperty } from '@nestjs/swagger';

/** What a request answers when it must not tell whether the account exists (a password reset). */
export class AcceptedResponse {
  @ApiProperty({ example: 'If an account has this email address, a reset link is on its way.', description: 'Always the same text.' })
  message: string;
}
