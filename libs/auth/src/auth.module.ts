import { Module } from '@nestjs/common';
import { PassportModule } from '@nestjs/passport';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ApiKeysModule } from '@app/api-keys';
import { Account } from './accounts/account.entity';
import { AccountsService } from './accounts/accounts.service';
import { PasswordHasher } from './accounts/password-hasher';
import { AuthController } from './auth.controller';
import { AuthService } from './auth.service';
import { AccountCreateCommand } from './cli/account-create.command';
import { ApiKeyCreateCommand } from './cli/api-key-create.command';
import { BearerAuthGuard } from './bearer/bearer-auth.guard';
import { BearerStrategy } from './bearer/bearer.strategy';
import { CredentialVerifier } from './bearer/credential-verifier';
import { RefreshToken } from './sessions/refresh-token.entity';
import { Session } from './sessions/session.entity';
import { SessionsService } from './sessions/sessions.service';
import { AccessTokens } from './tokens/access-tokens';

@Module({
  imports: [PassportModule, ApiKeysModule, TypeOrmModule.forFeature([Account, Session, RefreshToken])],
  controllers: [AuthController],
  providers: [
    AuthService,
    AccountsService,
    PasswordHasher,
    SessionsService,
    AccessTokens,
    CredentialVerifier,
    BearerStrategy,
    BearerAuthGuard,
    AccountCreateCommand,
    ApiKeyCreateCommand,
  ],
  exports: [AccountsService, SessionsService, CredentialVerifier, BearerAuthGuard],
})
export class AuthModule {}
