import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, ValidateIf } from 'class-validator';
import { CurrentPassword, DisplayName, EmailAddress, IssuedToken, NewPassword } from '../../dto/auth.request';

export class ForgotPasswordRequest {
  @ApiProperty({ example: 'ada@example.com', description: 'Email address of the account.' })
  @EmailAddress()
  email: string;
}

export class ResetPasswordRequest {
  @ApiProperty({ example: 'hpr_Z3Vlc3MgYWdhaW4uLi4', description: 'The token from the reset link.' })
  @IssuedToken()
  token: string;

  @NewPassword()
  newPassword: string;
}

export class VerifyEmailRequest {
  @ApiProperty({ example: 'hev_Z3Vlc3MgYWdhaW4uLi4', description: 'The token from the verification link.' })
  @IssuedToken()
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
  @DisplayName()
  name?: string;

  @ApiPropertyOptional({
    example: 'ada@example.org',
    description: 'New email address: replaces the old one once confirmed through the link mailed to it.',
  })
  @ValidateIf((body: UpdateMeRequest) => body.email !== undefined)
  @EmailAddress()
  email?: string;

  @ApiPropertyOptional({ description: 'The current password; required to change the email.', example: 'correct horse battery staple' })
  @IsOptional()
  @CurrentPassword()
  currentPassword?: string;
}
