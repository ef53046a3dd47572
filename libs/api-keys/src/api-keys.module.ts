import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AccountsModule } from '@app/accounts';
import { ApiKeyExpiryJob } from './api-key-expiry.job';
import { ApiKeyVerifier } from './api-key-verifier';
import { ApiKey } from './api-key.entity';
import { ApiKeysController } from './api-keys.controller';
import { ApiKeysRepository } from './api-keys.repository';
import { ApiKeysService } from './api-keys.service';
import { ApiKeyCreateCommand } from './cli/api-key-create.command';

@Module({
  imports: [AccountsModule, TypeOrmModule.forFeature([ApiKey])],
  controllers: [ApiKeysController],
  providers: [ApiKeysService, ApiKeysRepository, ApiKeyVerifier, ApiKeyExpiryJob, ApiKeyCreateCommand],
  exports: [ApiKeysService, ApiKeyVerifier, ApiKeyExpiryJob],
})
export class ApiKeysModule {}
