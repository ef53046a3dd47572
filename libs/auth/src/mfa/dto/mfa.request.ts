import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, Length, Matches } from 'class-validator';
import { CurrentPassword, IssuedToken } from '../../dto/auth.request';

const SIX_DIGITS = /^\d{6}$/;

/** The 6-digit code of an authenticator app. */
function TotpCode(): PropertyDecorator {
  // Applied bottom up, as stacked decorators are: with stopAtFirstError the order picks the message.
  return applyDecorators(
    Matches(SIX_DIGITS, { message: 'code must be 6 digits' }),
    IsString(),
    ApiProperty({ pattern: SIX_DIGITS.source }),
  );
}

export class TotpCodeRequest {
  @ApiProperty({ example: '123456', description: 'The 6-digit code shown by the authenticator app.' })
  @TotpCode()
  code: string;
}

export class EnableMfaRequest extends TotpCodeRequest {
  @ApiProperty({
    description: 'The account password: a stolen access token alone cannot turn two-factor sign-in on and lock the owner out.',
    example: 'correct horse battery staple',
  })
  @CurrentPassword()
  password: string;
}

export class DisableMfaRequest {
  @ApiProperty({ description: 'The account password.', example: 'correct horse battery staple' })
  @CurrentPassword()
  password: string;

  @ApiProperty({ example: '123456', description: 'A current 6-digit code, or an unused recovery code.' })
  @IsString()
  @Length(6, 20)
  code: string;
}

export class MfaLoginRequest {
  @ApiProperty({ example: 'hmf_Z3Vlc3MgYWdhaW4uLi4', description: 'The mfaToken from POST /api/auth/login.' })
  @IssuedToken()
  mfaToken: string;

  @ApiPropertyOptional({ example: '123456', description: 'A current 6-digit code; or give recoveryCode instead.' })
  @IsOptional()
  @TotpCode()
  code?: string;

  @ApiPropertyOptional({ example: 'abcde-fghjk', description: 'One of the recovery codes; each works once.' })
  @IsOptional()
  @IsString()
  @Length(10, 20)
  recoveryCode?: string;
}
