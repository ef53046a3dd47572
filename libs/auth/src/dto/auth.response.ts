import { ApiProperty } from '@nestjs/swagger';
import type { AccountView } from '@app/accounts';
import { isoTimestamp } from '@app/core';
import type { IssuedTokens } from '../tokens/issued-tokens';

export class AccountResponse {
  @ApiProperty({ format: 'uuid', description: 'Account id.' })
  id: string;
  @ApiProperty({ example: 'ada@example.com', description: 'Email address (lower case).' })
  email: string;
  @ApiProperty({ example: 'Ada Lovelace', description: 'Display name.' })
  name: string;
  @ApiProperty({
    format: 'date-time',
    nullable: true,
    type: 'string',
    description: 'When the email address was confirmed; null until then.',
  })
  emailVerifiedAt: string | null;
  @ApiProperty({ format: 'date-time', description: 'When the account was created.' })
  createdAt: string;

  static from(account: AccountView): AccountResponse {
    return {
      id: account.id,
      email: account.email,
      name: account.name,
      emailVerifiedAt: isoTimestamp(account.emailVerifiedAt),
      createdAt: isoTimestamp(account.createdAt),
    };
  }
}

export class AuthTokensResponse {
  @ApiProperty({ type: AccountResponse, description: 'The account.' })
  account: AccountResponse;
  @ApiProperty({ description: 'Bearer access token (JWT), valid for expiresIn seconds.', example: 'eyJhbGciOiJIUzI1NiJ9...' })
  accessToken: string;
  @ApiProperty({ description: 'Single-use refresh token; exchange it at /api/auth/refresh.', example: 'hrt_Z3Vlc3MgYWdhaW4uLi4' })
  refreshToken: string;
  @ApiProperty({ type: 'integer', example: 900, description: 'Seconds until the access token expires.' })
  expiresIn: number;
  @ApiProperty({ example: 'Bearer', enum: ['Bearer'], description: 'How to send the access token.' })
  tokenType: 'Bearer';

  static fromTokens(account: AccountView, tokens: IssuedTokens): AuthTokensResponse {
    return {
      account: AccountResponse.from(account),
      accessToken: tokens.accessToken,
      refreshToken: tokens.refreshToken,
      expiresIn: tokens.expiresIn,
      tokenType: 'Bearer',
    };
  }
}
