import { applyDecorators } from '@nestjs/common';
import { ApiProperty } from '@nestjs/swagger';
import { IsEmail, IsString, Length, MaxLength, MinLength } from 'class-validator';
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

export class LoginRequest {
  @ApiProperty({ example: 'ada@example.com', description: 'Email address of the account.' })
  @TrimLower()
  @IsEmail({}, { message: 'email must be an email address' })
  @MaxLength(254)
  email: string;

  @ApiProperty({ example: 'correct horse battery staple', description: 'The account password.' })
  @IsString()
  @Length(1, 1024)
  password: string;
}

export class RegisterRequest {
  @ApiProperty({ example: 'ada@example.com', description: 'Email address; used to log in.' })
  @TrimLower()
  @IsEmail({}, { message: 'email must be an email address' })
  @MaxLength(254)
  email: string;

  @ApiProperty({ example: 'correct horse battery staple', minLength: 10, maxLength: 1024, description: 'At least 10 characters.' })
  @IsString()
  @MinLength(10, { message: 'password must be at least 10 characters' })
  @MaxLength(1024)
  password: string;

  @ApiProperty({ example: 'Ada Lovelace', minLength: 1, maxLength: 100, description: 'Display name: one line, no control characters.' })
  @Trim()
  @IsString()
  @Length(1, 100)
  @IsSingleLineText()
  name: string;
}

export class RefreshRequest {
  @ApiProperty({ example: 'hrt_Z3Vlc3MgYWdhaW4uLi4', description: 'The refresh token from the last login or refresh.' })
  @IsString()
  @Length(1, 200)
  refreshToken: string;
}

export class ChangePasswordRequest {
  @ApiProperty({ description: 'The current password.', example: 'correct horse battery staple' })
  @IsString()
  @Length(1, 1024)
  currentPassword: string;

  @NewPassword()
  newPassword: string;
}
