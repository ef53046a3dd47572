import { MiddlewareConsumer, Module, NestModule } from '@nestjs/common';
import { PassportModule } from '@nestjs/passport';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AccountsModule } from '@app/accounts';
import { ApiKeysModule } from '@app/api-keys';
import { AccountRateLimits } from './account-rate-limits';
import { AuthController } from './auth.controller';
import { AuthService } from './auth.service';
import { LoginFlow } from './login/login-flow';
import { AccountCreateCommand } from './cli/account-create.command';
import { AccountDisable2faCommand } from './cli/account-disable-2fa.command';
import { BearerAuthGuard } from './bearer/bearer-auth.guard';
import { BearerStrategy } from './bearer/bearer.strategy';
import { CredentialVerifier } from './bearer/credential-verifier';
import { VerifiedCredentials } from './bearer/verified-credentials';
import { AccountEmailController } from './email/account-email.controller';
import { AccountMail } from './email/account-mail';
import { AccountTokensRepository } from './email/account-tokens.repository';
import { EmailChange } from './email/email-change';
import { EmailVerificationService } from './email/email-verification.service';
import { PasswordCheck } from './password/password-check';
import { PasswordResetLinkJob } from './password/password-reset-link.job';
import { PasswordResetCompletion } from './password/password-reset-completion';
import { PasswordResetService } from './password/password-reset.service';
import { MfaController } from './mfa/mfa.controller';
import { AccountPagesController } from './pages/account-pages.controller';
import { AccountPagesService } from './pages/account-pages.service';
import { formBody } from './pages/form-body';
import { MfaRepository } from './mfa/mfa.repository';
import { MfaChanges } from './mfa/mfa-changes';
import { MfaLogin } from './mfa/mfa-login';
import { MfaService } from './mfa/mfa.service';
import { SecondFactorCodes } from './mfa/second-factor-codes';
import { RefreshToken } from './sessions/refresh-token.entity';
import { Session } from './sessions/session.entity';
import { SessionActivity } from './sessions/session-activity';
import { SessionsController } from './sessions/sessions.controller';
import { SessionsRepository } from './sessions/sessions.repository';
import { SessionsService } from './sessions/sessions.service';
import { AccessTokens } from './tokens/access-tokens';
import { LoginActivity } from './login/login-activity';

@Module({
  imports: [PassportModule, AccountsModule, ApiKeysModule, TypeOrmModule.forFeature([Session, RefreshToken])],
  controllers: [AuthController, SessionsController, MfaController, AccountEmailController, AccountPagesController],
  providers: [
    AuthService,
    LoginFlow,
    VerifiedCredentials,
    SessionsService,
    SessionsRepository,
    SessionActivity,
    MfaService,
    MfaChanges,
    MfaLogin,
    SecondFactorCodes,
    MfaRepository,
    AccountMail,
    AccountTokensRepository,
    EmailVerificationService,
    EmailChange,
    AccountRateLimits,
    PasswordResetService,
    PasswordResetCompletion,
    PasswordResetLinkJob,
    AccessTokens,
    CredentialVerifier,
    BearerStrategy,
    BearerAuthGuard,
    AccountCreateCommand,
    AccountDisable2faCommand,
    LoginActivity,
    PasswordCheck,
    AccountPagesService,
  ],
  exports: [AccountsModule, SessionsService, CredentialVerifier, BearerAuthGuard],
})
export class AuthModule implements NestModule {
  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(formBody).forRoutes(AccountPagesController);
  }
}
