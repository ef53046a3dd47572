import { Body, Controller, HttpCode, Patch, Post } from '@nestjs/common';
import { ApiAcceptedResponse, ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiProblems, CurrentClient, CurrentPrincipal, LoginRoute, Principal, Public, RateLimit, RequestFacts } from '@app/core';
import { AccountResponse } from '../dto/auth.response';
import { PasswordResetService } from '../password/password-reset.service';
import { AcceptedResponse } from '../dto/accepted.response';
import { ForgotPasswordRequest, ResetPasswordRequest, UpdateMeRequest, VerifyEmailRequest } from './dto/account-email.request';
import { EmailChange } from './email-change';
import { EmailVerificationService } from './email-verification.service';

@ApiTags('Auth')
@LoginRoute()
@Controller('api/auth')
export class AccountEmailController {
  constructor(
    private readonly verification: EmailVerificationService,
    private readonly emailChange: EmailChange,
    private readonly passwordReset: PasswordResetService,
  ) {}

  @Public()
  @RateLimit('password-reset')
  @Post('password/forgot')
  @HttpCode(202)
  @ApiOperation({
    summary: 'Mail a password reset link (the same answer whether or not the email has an account)',
    operationId: 'forgotPassword',
  })
  @ApiAcceptedResponse({ type: AcceptedResponse })
  @ApiProblems(400, 429)
  forgot(@Body() body: ForgotPasswordRequest, @CurrentClient() client: RequestFacts): Promise<AcceptedResponse> {
    return this.passwordReset.requestReset(body.email, client);
  }

  @Public()
  @RateLimit('password-reset')
  @Post('password/reset')
  @HttpCode(204)
  @ApiOperation({ summary: 'Set a new password with the token of a reset link; ends every session', operationId: 'resetPassword' })
  @ApiProblems({ 400: ['invalid_input', 'invalid_token'] }, 429)
  async reset(@Body() body: ResetPasswordRequest, @CurrentClient() client: RequestFacts): Promise<void> {
    await this.passwordReset.reset(body.token, body.newPassword, client);
  }

  @Public()
  @RateLimit('login')
  @Post('email/verify')
  @HttpCode(204)
  @ApiOperation({ summary: 'Confirm an email address with the token of a verification link', operationId: 'verifyEmail' })
  @ApiProblems({ 400: ['invalid_input', 'invalid_token'], 409: ['already_verified'] }, 429)
  async verify(@Body() body: VerifyEmailRequest, @CurrentClient() client: RequestFacts): Promise<void> {
    await this.verification.verify(body.token, client);
  }

  @ApiBearerAuth()
  @Post('email/resend')
  @HttpCode(204)
  @ApiOperation({ summary: 'Mail a new verification link to the account address', operationId: 'resendVerificationEmail' })
  @ApiProblems(401, 403, { 409: ['already_verified'] }, 429)
  resend(@CurrentPrincipal() principal: Principal): Promise<void> {
    return this.verification.resend(principal);
  }

  @ApiBearerAuth()
  @Patch('me')
  @ApiOperation({
    summary:
      'Change the name, or the email (confirmed through a link before it applies; the same answer whether or not the address is taken)',
    operationId: 'updateMe',
  })
  @ApiProblems(400, 401, 403, 429)
  updateMe(@CurrentPrincipal() principal: Principal, @Body() body: UpdateMeRequest): Promise<AccountResponse> {
    return this.emailChange.update(principal, body);
  }
}
