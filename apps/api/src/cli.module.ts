import { DynamicModule, Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { EventEmitterModule } from '@nestjs/event-emitter';
import { AppConfig, ConfigModule, CoreModule, DatabaseModule } from '@app/core';
import { AREA_MODULES } from './area-modules';
import { CredentialStatusModule } from './credentials/credential-status.module';
import { DemoDataService } from './demo/demo-data.service';
import { allMigrations } from './migrations';

/** The areas without HTTP or schedulers: what operator commands run on. */
@Module({})
export class CliModule {
  /** `migrate: false` for `migration:run`, which applies them itself and reports what it did. */
  static forRoot(config: AppConfig, options: { migrate: boolean } = { migrate: true }): DynamicModule {
    return {
      module: CliModule,
      imports: [
        ConfigModule.forRoot(config),
        CoreModule,
        DatabaseModule.forRoot({ migrations: allMigrations, migrate: options.migrate }),
        EventEmitterModule.forRoot({ ignoreErrors: true }),
        DiscoveryModule,
        ...AREA_MODULES,
        CredentialStatusModule,
      ],
      providers: [DemoDataService],
    };
  }
}
