import { Injectable } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { DataSource } from 'typeorm';
import { driverMaster } from '@app/core';
import { VpsGauges } from '@app/vps';
import { registerHostGauges } from './host-gauges';

interface PoolLike {
  totalCount?: number;
  idleCount?: number;
  waitingCount?: number;
}

/** Prometheus metrics: requests by route and status, latency histograms, the pool, the process. */
@Injectable()
export class OperatorMetrics {
  readonly registry = new Registry();
  private readonly requests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests by method, route and status.',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [this.registry],
  });
  private readonly duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request latency by method, route and status.',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [this.registry],
  });

  constructor(dataSource: DataSource, services: VpsGauges) {
    collectDefaultMetrics({ register: this.registry });
    new Gauge({
      name: 'hypervisor_orphans',
      help: 'Domains and volumes named svc-... that no live service owns, as the last reconciliation on this process saw them.',
      labelNames: ['kind'] as const,
      registers: [this.registry],
      collect() {
        this.set({ kind: 'domain' }, services.reconciliation.orphanDomains);
        this.set({ kind: 'volume' }, services.reconciliation.orphanVolumes);
      },
    });
    new Counter({
      name: 'hypervisor_reconcile_events_total',
      help: 'What reconciliation on this process did: orphans removed after their grace period, VPSes whose machine vanished.',
      labelNames: ['event'] as const,
      registers: [this.registry],
      collect() {
        this.reset();
        this.inc({ event: 'orphan_removed' }, services.reconciliation.orphansRemoved);
        this.inc({ event: 'machine_missing' }, services.reconciliation.machinesMissing);
      },
    });
    new Gauge({
      name: 'console_connections_open',
      help: 'Console WebSockets open on this process.',
      registers: [this.registry],
      collect() {
        this.set(services.console.open);
      },
    });
    new Counter({
      name: 'console_proxied_bytes_total',
      help: 'Bytes the console proxy copied, to the client (from the VNC server) and from the client.',
      labelNames: ['direction'] as const,
      registers: [this.registry],
      collect() {
        this.reset();
        this.inc({ direction: 'to_client' }, services.console.bytesToClient);
        this.inc({ direction: 'from_client' }, services.console.bytesFromClient);
      },
    });
    new Counter({
      name: 'vps_backups_total',
      help: 'VPS backups this process made (available) and that failed.',
      labelNames: ['outcome'] as const,
      registers: [this.registry],
      collect() {
        this.reset();
        this.inc({ outcome: 'available' }, services.backups.made);
        this.inc({ outcome: 'failed' }, services.backups.failed);
      },
    });
    new Counter({
      name: 'vps_backup_bytes_stored_total',
      help: 'Bytes of VPS backups this process stored in the backup store.',
      registers: [this.registry],
      collect() {
        this.reset();
        this.inc(services.backups.bytesStored);
      },
    });
    registerHostGauges(this.registry, services);
    const pool = () => driverMaster<PoolLike>(dataSource) ?? {};
    new Gauge({
      name: 'db_pool_connections',
      help: 'Database pool connections by state (total, idle, in use, waiting clients).',
      labelNames: ['state'] as const,
      registers: [this.registry],
      collect() {
        const p = pool();
        const total = p.totalCount ?? 0;
        const idle = p.idleCount ?? 0;
        this.set({ state: 'total' }, total);
        this.set({ state: 'idle' }, idle);
        this.set({ state: 'in_use' }, total - idle);
        this.set({ state: 'waiting' }, p.waitingCount ?? 0);
      },
    });
  }

  /** Express middleware: counts each response under its route pattern (never the raw URL). */
  readonly middleware = (req: Request, res: Response, next: NextFunction): void => {
    const end = this.duration.startTimer();
    res.once('finish', () => {
      const route = req.route?.path ? `${req.baseUrl}${req.route.path as string}` : 'unmatched';
      const labels = { method: req.method, route, status: String(res.statusCode) };
      this.requests.inc(labels);
      end(labels);
    });
    next();
  };
}
