import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, Length, Matches } from 'class-validator';

export class TotpCodeRequest {
  @ApiProperty({ example: '123456', description: 'The 6-digit code shown by the authenticator app.' })
  @IsString()
  @Matches(/^\d{6}$/, { message: 'code must be 6 digits' })
  code: string;
}

export class EnableMfaRequest extends TotpCodeRequest {
  @ApiProperty({
    description: 'The account password: a stolen access token alone cannot turn two-factor sign-in on and lock the owner out.',
    example: 'correct horse battery staple',
  })
  @IsString()
  @Length(1, 1024)
  password: string;
}

export class DisableMfaRequest {
  @ApiProperty({ description: 'The account password.', example: 'correct horse battery staple' })
  @IsString()
  @Length(1, 1024)
  password: string;

  @ApiProperty({ example: '123456', description: 'A current 6-digit code, or an unused recovery code.' })
  @IsString()
  @Length(6, 20)
  code: string;
}

export class MfaLoginRequest {
  @ApiProperty({ example: 'hmf_Z3Vlc3MgYWdhaW4uLi4', description: 'The mfaToken from POST /api/auth/login.' })
  @IsString()
  @Length(1, 200)
  mfaToken: string;

  @ApiPropertyOptional({ example: '123456', description: 'A current 6-digit code; or give recoveryCode instead.' })
  @IsOptional()
  @IsString()
  @Matches(/^\d{6}$/, { message: 'code must be 6 digits' })
  code?: string;

  @ApiPropertyOptional({ example: 'abcde-fghjk', description: 'One of the recovery codes; each works once.' })
  @IsOptional()
  @IsString()
  @Length(10, 20)
  recoveryCode?: string;
}
