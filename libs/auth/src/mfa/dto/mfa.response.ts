import { ApiProperty } from '@nestjs/swagger';
import type { TotpEnrolment } from '../totp';

export class MfaSetupResponse {
  @ApiProperty({ example: 'JBSWY3DPEHPK3PXP', description: 'The TOTP secret (base32), for manual entry. Shown once.' })
  secret: string;
  @ApiProperty({
    example: 'otpauth://totp/Hosting%20Account:ada%40example.com?secret=JBSWY3DPEHPK3PXP',
    description: 'The otpauth:// URI.',
  })
  otpauthUri: string;
  @ApiProperty({ example: 'data:image/svg+xml;base64,PHN2Zy4uLg==', description: 'The URI as a QR code (SVG data URL).' })
  qrCodeDataUrl: string;

  static fromEnrolment(enrolment: TotpEnrolment): MfaSetupResponse {
    return { secret: enrolment.secret, otpauthUri: enrolment.otpauthUri, qrCodeDataUrl: enrolment.qrCodeDataUrl };
  }
}

export class RecoveryCodesResponse {
  @ApiProperty({ type: [String], example: ['abcde-fghjk'], description: 'Ten single-use recovery codes. Shown only in this response.' })
  recoveryCodes: string[];

  static fromCodes(recoveryCodes: string[]): RecoveryCodesResponse {
    return { recoveryCodes };
  }
}

export class MfaRequiredResponse {
  @ApiProperty({ enum: [true], example: true, description: 'A second factor is needed: call POST /api/auth/login/2fa.' })
  mfaRequired: true;
  @ApiProperty({ example: 'hmf_Z3Vlc3MgYWdhaW4uLi4', description: 'Single-use token for POST /api/auth/login/2fa; gives no access.' })
  mfaToken: string;
  @ApiProperty({ type: 'integer', example: 300, description: 'Seconds until the mfaToken expires.' })
  expiresIn: number;

  static fromToken(mfaToken: string, expiresIn: number): MfaRequiredResponse {
    return { mfaRequired: true, mfaToken, expiresIn };
  }
}
