import { Controller, Get, Header } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { HealthCheck, HealthCheckResult, HealthCheckService, HealthIndicatorResult, TypeOrmHealthIndicator } from '@nestjs/terminus';
import { Public } from '@app/core';
import { DnsProvider } from '@app/dns';

/** Liveness says the process serves; readiness also that the database answers (503 if not), and which DNS servers it writes to. */
@ApiExcludeController()
@Public()
@Controller('health')
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly database: TypeOrmHealthIndicator,
    private readonly dns: DnsProvider,
  ) {}

  @Get('live')
  @Header('Cache-Control', 'no-store')
  @HealthCheck()
  live(): Promise<HealthCheckResult> {
    return this.health.check([]);
  }

  @Get('ready')
  @Header('Cache-Control', 'no-store')
  @HealthCheck()
  ready(): Promise<HealthCheckResult> {
    return this.health.check([() => this.database.pingCheck('database', { timeout: 2000 }), () => this.dnsServers()]);
  }

  /** Reported, never failing readiness: an API whose DNS servers are down still serves everything else. */
  private async dnsServers(): Promise<HealthIndicatorResult> {
    const reachable = await this.dns.reachable().catch(() => false);
    return { dns: { status: 'up', provider: this.dns.kind, reachable } };
  }
}
