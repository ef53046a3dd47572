import { Module } from '@nestjs/common';
import { AppConfig } from '@app/core';
import { VpsModule } from '@app/vps';
import { AlertsEvaluationJob } from './alerts/alerts-evaluation.job';
import { AlertsController } from './alerts/alerts.controller';
import { AlertsRepository } from './alerts/alerts.repository';
import { AlertsService } from './alerts/alerts.service';
import { MetricsCache } from './metrics-cache';
import { MetricsController } from './metrics.controller';
import { MetricsService } from './metrics.service';
import { MetricsSource } from './source/metrics-source';
import { PrometheusMetricsSource } from './source/prometheus-metrics.source';
import { SimulatedMetricsSource } from './source/simulated-metrics.source';

const hasPrometheus = (config: AppConfig) => Boolean(config.metrics.prometheusUrl) || Object.keys(config.metrics.regionUrls).length > 0;

/** A VPS's CPU, disk and network series, read from the metrics system through the MetricsSource port, and its alerts on them. */
@Module({
  imports: [VpsModule],
  controllers: [MetricsController, AlertsController],
  providers: [
    MetricsService,
    MetricsCache,
    AlertsRepository,
    AlertsService,
    AlertsEvaluationJob,
    // A configured query API wins; the simulator's VPSes get simulated series; libvirt without one answers metrics_unavailable.
    {
      provide: MetricsSource,
      inject: [AppConfig],
      useFactory: (config: AppConfig): MetricsSource =>
        hasPrometheus(config) || config.computeProvider !== 'simulator'
          ? new PrometheusMetricsSource(config.metrics)
          : new SimulatedMetricsSource(config.network.mode === 'bridge'),
    },
  ],
  exports: [AlertsEvaluationJob],
})
export class MetricsModule {}
