import { Body, Controller, Header, HttpCode, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiProblems, CurrentClient, CurrentPrincipal, LoginRoute, Principal, Public, RateLimit, RequestFacts } from '@app/core';
import { AuthTokensResponse } from '../dto/auth.response';
import { LoginFlow } from '../login/login-flow';
import { DisableMfaRequest, EnableMfaRequest, MfaLoginRequest } from './dto/mfa.request';
import { MfaSetupResponse, RecoveryCodesResponse } from './dto/mfa.response';
import { MfaService } from './mfa.service';

@ApiTags('Auth')
@LoginRoute()
@Controller('api/auth')
export class MfaController {
  constructor(
    private readonly mfa: MfaService,
    private readonly login: LoginFlow,
  ) {}

  @Public()
  @RateLimit('login')
  @Post('login/2fa')
  @HttpCode(200)
  @Header('Cache-Control', 'no-store')
  @ApiOperation({
    summary: 'Second login step: the mfaToken with a TOTP code or a recovery code',
    description:
      'Public: no bearer token is sent or checked. A 401 here is about the second factor, never a bearer token: ' +
      '`invalid_code` (ask for another code; the mfaToken stays usable until five wrong codes) or `invalid_mfa_token` ' +
      '(expired after 5 minutes, used, or ended by five wrong codes: log in again with the password).',
    operationId: 'loginSecondFactor',
  })
  @ApiProblems(400, { 401: ['invalid_mfa_token', 'invalid_code'] }, 429)
  loginSecondFactor(@Body() body: MfaLoginRequest, @CurrentClient() client: RequestFacts): Promise<AuthTokensResponse> {
    return this.login.withSecondFactor(body, client);
  }

  @ApiBearerAuth()
  @Post('2fa/setup')
  @HttpCode(200)
  @Header('Cache-Control', 'no-store')
  @ApiOperation({
    summary: 'Start two-factor setup: a new TOTP secret, its otpauth:// URI and QR code (needs a confirmed email address)',
    operationId: 'setupTwoFactor',
  })
  @ApiProblems(401, { 403: ['forbidden', 'email_unverified'], 409: ['mfa_enabled'] }, 429)
  setup(@CurrentPrincipal() principal: Principal): Promise<MfaSetupResponse> {
    return this.mfa.setup(principal);
  }

  @ApiBearerAuth()
  @Post('2fa/enable')
  @HttpCode(200)
  @Header('Cache-Control', 'no-store')
  @ApiOperation({
    summary: 'Turn two-factor sign-in on (password and a first code); returns recovery codes once',
    operationId: 'enableTwoFactor',
  })
  @ApiProblems({ 400: ['invalid_input', 'invalid_code'], 403: ['forbidden'], 409: ['mfa_not_set_up', 'mfa_enabled'] }, 401, 429)
  enable(@CurrentPrincipal() principal: Principal, @Body() body: EnableMfaRequest): Promise<RecoveryCodesResponse> {
    return this.mfa.enable(principal, body);
  }

  @ApiBearerAuth()
  @Post('2fa/disable')
  @HttpCode(204)
  @ApiOperation({ summary: 'Turn two-factor sign-in off (password and a code)', operationId: 'disableTwoFactor' })
  @ApiProblems({ 400: ['invalid_input', 'invalid_code'], 403: ['forbidden'], 409: ['mfa_not_enabled'] }, 401, 429)
  disable(@CurrentPrincipal() principal: Principal, @Body() body: DisableMfaRequest): Promise<void> {
    return this.mfa.disable(principal, body);
  }
}
