import { Global, Module } from '@nestjs/common';
import { ApiKeysModule } from '@app/api-keys';
import { AuthModule } from '@app/auth';
import { CredentialStatus } from '@app/core';
import { CredentialStatusAdapter } from './credential-status.adapter';

/** Provides the CredentialStatus port to every area (consoles check their opener's credential through it). */
@Global()
@Module({
  imports: [AuthModule, ApiKeysModule],
  providers: [{ provide: CredentialStatus, useClass: CredentialStatusAdapter }],
  exports: [CredentialStatus],
})
export class CredentialStatusModule {}
