import { Body, Controller, Get, Header, HttpCode, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiExtraModels, ApiOkResponse, ApiOperation, ApiTags, getSchemaPath } from '@nestjs/swagger';
import { ApiProblems, CurrentClient, CurrentPrincipal, LoginRoute, Principal, Public, RateLimit, RequestFacts } from '@app/core';
import { AuthService } from './auth.service';
import { LoginFlow } from './login/login-flow';
import { ChangePasswordRequest, LoginRequest, RefreshRequest, RegisterRequest, SwitchAccountRequest } from './dto/auth.request';
import { AuthTokensResponse, MeResponse } from './dto/auth.response';
import { MfaRequiredResponse } from './mfa/dto/mfa.response';

@ApiTags('Auth')
@LoginRoute()
@Controller('api/auth')
export class AuthController {
  constructor(
    private readonly auth: AuthService,
    private readonly loginFlow: LoginFlow,
  ) {}

  @Public()
  @RateLimit('register')
  @Post('register')
  @Header('Cache-Control', 'no-store')
  @ApiOperation({ summary: 'Create an account and log in', operationId: 'register' })
  @ApiProblems(400, { 409: ['email_taken'] }, 413, 429)
  register(@Body() body: RegisterRequest, @CurrentClient() client: RequestFacts): Promise<AuthTokensResponse> {
    return this.auth.register(body, client);
  }

  @Public()
  @RateLimit('login')
  @Post('login')
  @HttpCode(200)
  @Header('Cache-Control', 'no-store')
  @ApiOperation({ summary: 'Log in with email and password (with 2FA on: an mfaToken for POST /api/auth/login/2fa)', operationId: 'login' })
  @ApiExtraModels(AuthTokensResponse, MfaRequiredResponse)
  @ApiOkResponse({
    description: 'The token pair, or with two-factor sign-in on, an mfaToken for the second step.',
    schema: { oneOf: [{ $ref: getSchemaPath(AuthTokensResponse) }, { $ref: getSchemaPath(MfaRequiredResponse) }] },
  })
  @ApiProblems(400, { 401: ['invalid_credentials'] }, 429)
  login(@Body() body: LoginRequest, @CurrentClient() client: RequestFacts): Promise<AuthTokensResponse | MfaRequiredResponse> {
    return this.loginFlow.withPassword(body, client);
  }

  @Public()
  @RateLimit('login')
  @Post('refresh')
  @HttpCode(200)
  @Header('Cache-Control', 'no-store')
  @ApiOperation({ summary: 'Exchange a refresh token for a new token pair', operationId: 'refreshTokens' })
  @ApiProblems(400, 401, 429)
  refresh(@Body() body: RefreshRequest): Promise<AuthTokensResponse> {
    return this.auth.refresh(body.refreshToken);
  }

  @ApiBearerAuth()
  @Post('logout')
  @HttpCode(204)
  @ApiOperation({ summary: 'End the current session (its refresh and access tokens)', operationId: 'logout' })
  @ApiProblems(401, { 403: ['forbidden'] }, 429)
  logout(@CurrentPrincipal() principal: Principal): Promise<void> {
    return this.auth.logout(principal);
  }

  @ApiBearerAuth()
  @RateLimit('password')
  @Post('password')
  @HttpCode(204)
  @ApiOperation({ summary: 'Change the password and end every other session', operationId: 'changePassword' })
  @ApiProblems(400, 401, { 403: ['forbidden'] }, 429)
  changePassword(@CurrentPrincipal() principal: Principal, @Body() body: ChangePasswordRequest): Promise<void> {
    return this.auth.changePassword(principal, body);
  }

  @ApiBearerAuth()
  @Get('me')
  @ApiOperation({ summary: 'The signed-in login, its accounts and its role on the current one', operationId: 'getMe' })
  @ApiProblems(401, 429)
  me(@CurrentPrincipal() principal: Principal): Promise<MeResponse> {
    return this.auth.me(principal);
  }

  @ApiBearerAuth()
  @Post('switch-account')
  @HttpCode(200)
  @Header('Cache-Control', 'no-store')
  @ApiOperation({
    summary: "New tokens of this session acting on another of the login's accounts (its unused refresh token is void)",
    operationId: 'switchAccount',
  })
  @ApiProblems(400, 401, { 403: ['forbidden'] }, 404, 429)
  switchAccount(@CurrentPrincipal() principal: Principal, @Body() body: SwitchAccountRequest): Promise<AuthTokensResponse> {
    return this.auth.switchAccount(principal, body.accountId);
  }
}
