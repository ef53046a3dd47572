import { DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER, APP_GUARD, APP_PIPE, DiscoveryModule } from '@nestjs/core';
import { EventEmitterModule } from '@nestjs/event-emitter';
import { TerminusModule } from '@nestjs/terminus';
import { BearerAuthGuard } from '@app/auth';
import { AppConfig, ConfigModule, CoreModule, createValidationPipe, DatabaseModule, ProblemFilter, RateLimitGuard } from '@app/core';
import { AREA_MODULES } from './area-modules';
import { CredentialStatusModule } from './credentials/credential-status.module';
import { DemoDataService } from './demo/demo-data.service';
import { HealthController } from './health/health.controller';
import { ProblemPagesController } from './problems/problem-pages.controller';
import { JobWorkers } from './jobs/job-workers';
import { OperatorMetricsEndpoint } from './operator-metrics/operator-metrics-endpoint';
import { OperatorMetrics } from './operator-metrics/operator-metrics';
import { OperatorSocket } from './operator-socket/operator-socket';
import { allMigrations } from './migrations';

@Module({})
export class AppModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ConfigModule.forRoot(config),
        CoreModule,
        DatabaseModule.forRoot({ migrations: allMigrations }),
        EventEmitterModule.forRoot({ ignoreErrors: true }),
        DiscoveryModule,
        TerminusModule.forRoot({ logger: false }),
        ...AREA_MODULES,
        CredentialStatusModule,
      ],
      controllers: [HealthController, ProblemPagesController],
      providers: [
        DemoDataService,
        OperatorMetrics,
        OperatorMetricsEndpoint,
        OperatorSocket,
        JobWorkers,
        { provide: APP_GUARD, useExisting: BearerAuthGuard },
        { provide: APP_GUARD, useClass: RateLimitGuard },
        { provide: APP_FILTER, useClass: ProblemFilter },
        { provide: APP_PIPE, useFactory: createValidationPipe },
      ],
    };
  }
}
