import { Global, Module } from '@nestjs/common';
import { AppConfig } from './config/app-config';
import { SecretBox } from './crypto/secret-box';
import { UrlSigner } from './crypto/url-signer';
import { TransactionRunner } from './database/transaction';
import { MemoryRateLimitStore } from './rate-limit/memory-rate-limit.store';
import { RateLimitStore } from './rate-limit/rate-limit.store';

@Global()
@Module({
  providers: [
    TransactionRunner,
    SecretBox,
    UrlSigner,
    {
      provide: RateLimitStore,
      inject: [AppConfig],
      useFactory: () => new MemoryRateLimitStore(),
    },
  ],
  exports: [TransactionRunner, SecretBox, UrlSigner, RateLimitStore],
})
export class CoreModule {}
