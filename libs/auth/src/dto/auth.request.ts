import { applyDecorators } from '@nestjs/common';
import { ApiProperty } from '@nestjs/swagger';
import { IsEmail, IsString, IsUUID, Length, MaxLength, MinLength } from 'class-validator';
import { IsSingleLineText, Trim, TrimLower } from '@app/core';

/** The rule of a password being set; the reset page (pages/) checks the same bounds. */
export const PASSWORD_MIN_LENGTH = 10;
export const PASSWORD_MAX_LENGTH = 1024;

/** A password being set (change, reset): the rule and its documentation in one place. */
export function NewPassword(): PropertyDecorator {
  return applyDecorators(
    ApiProperty({
      minLength: PASSWORD_MIN_LENGTH,
      maxLength: PASSWORD_MAX_LENGTH,
      description: `The new password, at least ${PASSWORD_MIN_LENGTH} characters.`,
      example: 'another long passphrase',
    }),
    IsString(),
    MinLength(PASSWORD_MIN_LENGTH, { message: `newPassword must be at least ${PASSWORD_MIN_LENGTH} characters` }),
    MaxLength(PASSWORD_MAX_LENGTH),
  );
}

// The rules below list their decorators bottom up, in the order the stacked ones they replace were
// applied: with stopAtFirstError that order picks the message a request gets.

/** The account's password, given to prove who asks (login, changes that need it): checked, not ruled on. */
export function CurrentPassword(): PropertyDecorator {
  return applyDecorators(Length(1, PASSWORD_MAX_LENGTH), IsString(), ApiProperty({ minLength: 1, maxLength: PASSWORD_MAX_LENGTH }));
}

/** An email address as typed in: trimmed, lower case, at most 254 characters. */
export function EmailAddress(): PropertyDecorator {
  return applyDecorators(
    MaxLength(254),
    IsEmail({}, { message: 'email must be an email address' }),
    TrimLower(),
    ApiProperty({ maxLength: 254, format: 'email' }),
  );
}

/** An account's display name: trimmed, 1 to 100 characters, one line (every account mail carries it). */
export function DisplayName(): PropertyDecorator {
  return applyDecorators(IsSingleLineText(), Length(1, 100), IsString(), Trim(), ApiProperty({ minLength: 1, maxLength: 100 }));
}

/** A token this API handed out (refresh, second-factor, reset and verification links). */
export function IssuedToken(): PropertyDecorator {
  return applyDecorators(Length(1, 200), IsString(), ApiProperty({ minLength: 1, maxLength: 200 }));
}

export class LoginRequest {
  @ApiProperty({ example: 'ada@example.com', description: 'Email address of the account.' })
  @EmailAddress()
  email: string;

  @ApiProperty({ example: 'correct horse battery staple', description: 'The account password.' })
  @CurrentPassword()
  password: string;
}

export class RegisterRequest {
  @ApiProperty({ example: 'ada@example.com', description: 'Email address; used to log in.' })
  @EmailAddress()
  email: string;

  @ApiProperty({ example: 'correct horse battery staple', minLength: 10, maxLength: 1024, description: 'At least 10 characters.' })
  @IsString()
  @MinLength(10, { message: 'password must be at least 10 characters' })
  @MaxLength(1024)
  password: string;

  @ApiProperty({ example: 'Ada Lovelace', minLength: 1, maxLength: 100, description: 'Display name: one line, no control characters.' })
  @DisplayName()
  name: string;
}

export class RefreshRequest {
  @ApiProperty({ example: 'hrt_Z3Vlc3MgYWdhaW4uLi4', description: 'The refresh token from the last login or refresh.' })
  @IssuedToken()
  refreshToken: string;
}

export class ChangePasswordRequest {
  @ApiProperty({ description: 'The current password.', example: 'correct horse battery staple' })
  @CurrentPassword()
  currentPassword: string;

  @NewPassword()
  newPassword: string;
}

export class SwitchAccountRequest {
  @ApiProperty({ format: 'uuid', description: "One of the login's accounts (GET /api/auth/me lists them)." })
  @IsUUID('all', { message: 'accountId must be a UUID' })
  accountId: string;
}
