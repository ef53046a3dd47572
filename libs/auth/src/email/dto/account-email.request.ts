import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsEmail, IsOptional, IsString, Length, MaxLength, ValidateIf } from 'class-validator';
import { IsSingleLineText, Trim, TrimLower } from '@app/core';
import { NewPassword } from '../../dto/auth.request';

export class ForgotPasswordRequest {
  @ApiProperty({ example: 'ada@example.com', description: 'Email address of the account.' })
  @TrimLower()
  @IsEmail({}, { message: 'email must be an email address' })
  @MaxLength(254)
  email: string;
}

export class ResetPasswordRequest {
  @ApiProperty({ example: 'hpr_Z3Vlc3MgYWdhaW4uLi4', description: 'The token from the reset link.' })
  @IsString()
  @Length(1, 200)
  token: string;

  @NewPassword()
  newPassword: string;
}

export class VerifyEmailRequest {
  @ApiProperty({ example: 'hev_Z3Vlc3MgYWdhaW4uLi4', description: 'The token from the verification link.' })
  @IsString()
  @Length(1, 200)
  token: string;
}

export class UpdateMeRequest {
  @ApiPropertyOptional({
    example: 'Ada Lovelace',
    minLength: 1,
    maxLength: 100,
    description: 'New display name: one line, no control characters.',
  })
  // Absent means unchanged; null is not a name.
  @ValidateIf((body: UpdateMeRequest) => body.name !== undefined)
  @Trim()
  @IsString()
  @Length(1, 100)
  @IsSingleLineText()
  name?: string;

  @ApiPropertyOptional({
    example: 'ada@example.org',
    description: 'New email address: replaces the old one once confirmed through the link mailed to it.',
  })
  @ValidateIf((body: UpdateMeRequest) => body.email !== undefined)
  @TrimLower()
  @IsEmail({}, { message: 'email must be an email address' })
  @MaxLength(254)
  email?: string;

  @ApiPropertyOptional({ description: 'The current password; required to change the email.', example: 'correct horse battery staple' })
  @IsOptional()
  @IsString()
  @Length(1, 1024)
  currentPassword?: string;
}
