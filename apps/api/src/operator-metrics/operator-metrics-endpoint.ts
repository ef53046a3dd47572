import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AppConfig } from '@app/core';
import { OperatorMetrics } from './operator-metrics';

/**
 * Prometheus scrapes `GET /metrics` on a port of its own (METRICS_PORT), never on the public API
 * port: Express matches routes case-insensitively, a proxy rule may not.
 * Unset, there is no metrics endpoint at all.
 */
@Injectable()
export class OperatorMetricsEndpoint implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Metrics');
  private server: Server | null = null;

  constructor(
    private readonly config: AppConfig,
    private readonly metrics: OperatorMetrics,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (this.config.metricsPort === undefined) return;
    const server = createServer((req, res) => void this.serve(req, res));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.config.metricsPort, () => resolve());
    });
    this.server = server;
    this.logger.log(`Metrics on port ${this.port}`);
  }

  /** The port actually bound (METRICS_PORT=0 picks a free one); null when off. */
  get port(): number | null {
    return (this.server?.address() as AddressInfo | null)?.port ?? null;
  }

  private async serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.method !== 'GET' || req.url?.split('?')[0].toLowerCase() !== '/metrics') {
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end('Not found\n');
      return;
    }
    try {
      const body = await this.metrics.registry.metrics();
      res.writeHead(200, { 'Content-Type': this.metrics.registry.contentType, 'Cache-Control': 'no-store' }).end(body);
    } catch (err) {
      this.logger.error(`Could not collect metrics: ${(err as Error).message}`);
      res.writeHead(500, { 'Content-Type': 'text/plain' }).end('Metrics unavailable\n');
    }
  }

  async onApplicationShutdown(): Promise<void> {
    const server = this.server;
    this.server = null;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
