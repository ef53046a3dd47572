import { ApiProperty } from '@nestjs/swagger';
import type { AccountView, LoginAccountRow } from '@app/accounts';
import { isoTimestamp, Principal, Role, ROLES } from '@app/core';
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

export class LoginAccountResponse {
  @ApiProperty({ format: 'uuid', description: 'Account id.' })
  accountId: string;
  @ApiProperty({ example: 'Acme Ltd', description: "The account's name (its first owner's display name)." })
  name: string;
  @ApiProperty({ enum: ROLES, enumName: 'Role', description: "The login's role on the account." })
  role: Role;

  static fromRow(row: LoginAccountRow): LoginAccountResponse {
    return { accountId: row.account_id, name: row.name, role: row.role };
  }
}

export class MeResponse extends AccountResponse {
  @ApiProperty({ format: 'uuid', description: 'The account this token acts on (POST /api/auth/switch-account changes it).' })
  currentAccountId: string;
  // No enumName: the shared Role schema would take this property's description (and its null).
  @ApiProperty({
    enum: ROLES,
    nullable: true,
    type: 'string',
    description: "The login's role on the current account; null if it is no longer a member there.",
  })
  role: Role | null;
  @ApiProperty({
    format: 'uuid',
    nullable: true,
    type: 'string',
    description: "The login's membership of the current account; null if none.",
  })
  memberId: string | null;
  @ApiProperty({ type: [LoginAccountResponse], description: 'Every account the login is a member of, its own first.' })
  accounts: LoginAccountResponse[];

  static of(account: AccountView, principal: Principal, accounts: LoginAccountRow[]): MeResponse {
    return {
      ...AccountResponse.from(account),
      currentAccountId: principal.accountId,
      role: principal.role,
      memberId: principal.memberId,
      accounts: accounts.map((row) => LoginAccountResponse.fromRow(row)),
    };
  }
}

export class AuthTokensResponse {
  @ApiProperty({ type: AccountResponse, description: 'The signed-in login (its own account row: address, name).' })
  account: AccountResponse;
  @ApiProperty({ format: 'uuid', description: 'The account the tokens act on (a login may belong to several).' })
  accountId: string;
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
      accountId: tokens.accountId,
      accessToken: tokens.accessToken,
      refreshToken: tokens.refreshToken,
      expiresIn: tokens.expiresIn,
      tokenType: 'Bearer',
    };
  }
}
