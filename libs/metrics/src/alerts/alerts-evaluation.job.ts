import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { ActivityLog, Actor, domainEvent, JobQueue, TransactionRunner } from '@app/core';
import { isVps, VpsState, VpsStates } from '@app/vps';
import type { InstanceAlertEvent } from '../metrics.events';
import { MetricsSource } from '../source/metrics-source';
import { alertPoints, AlertState, EVALUATION_STEP_SECONDS, metricTypeOf, stateOf } from './alert-rules';
import { AlertRow, AlertsRepository } from './alerts.repository';

export const EVALUATION_INTERVAL_SECONDS = 60;
const SYSTEM_ACTOR: Actor = { type: 'system', id: null, name: null };

export interface EvaluationOutcome {
  fired: number;
  resolved: number;
  /** VPSes whose check was skipped: the metrics system did not answer. */
  skipped: number;
}

/**
 * Every minute, one run across all replicas: each VPS's alerts against one read of the metrics
 * system over the longest window. A stopped VPS resolves its alerts (it uses nothing; its series
 * have no points), one between two power states waits; a terminated or deleted one loses them. A state changes by one
 * conditional UPDATE, so a crossing is announced once however many checks see it.
 */
@Injectable()
export class AlertsEvaluationJob implements OnModuleInit {
  private readonly logger = new Logger('MetricAlerts');

  constructor(
    private readonly alerts: AlertsRepository,
    private readonly vps: VpsStates,
    private readonly source: MetricsSource,
    private readonly tx: TransactionRunner,
    private readonly activity: ActivityLog,
    private readonly jobs: JobQueue,
  ) {}

  onModuleInit(): void {
    this.jobs.every('metric-alerts', EVALUATION_INTERVAL_SECONDS, async () => void (await this.run()));
  }

  async run(): Promise<EvaluationOutcome> {
    const outcome: EvaluationOutcome = { fired: 0, resolved: 0, skipped: 0 };
    const byService = new Map<string, AlertRow[]>();
    for (const alert of await this.alerts.all()) {
      if (!byService.has(alert.service_id)) byService.set(alert.service_id, []);
      byService.get(alert.service_id)!.push(alert);
    }
    for (const [serviceId, alerts] of byService) {
      if (this.jobs.stopping) break;
      const vps = await this.vps.forAccount(alerts[0].account_id, serviceId);
      if (!isVps(vps) || vps.status === 'terminated') {
        await this.alerts.deleteForService(serviceId);
        continue;
      }
      const next = await this.check(vps, alerts);
      if (!next) {
        outcome.skipped++;
        continue;
      }
      for (const alert of alerts) {
        const { state, value } = next(alert);
        if (state && state !== alert.state && (await this.change(vps, alert, state, value)))
          outcome[state === 'firing' ? 'fired' : 'resolved']++;
      }
    }
    return outcome;
  }

  /** Each alert's new state and latest value; null when the metrics system did not answer. */
  private async check(
    vps: VpsState,
    alerts: AlertRow[],
  ): Promise<((a: AlertRow) => { state: AlertState | null; value: number | null }) | null> {
    if (vps.powerState === 'stopped' || vps.powerState === 'error') return () => ({ state: 'ok', value: null });
    if (vps.powerState !== 'running') return () => ({ state: null, value: null });
    const end = Math.floor(Date.now() / 1000);
    const minutes = Math.max(...alerts.map((a) => a.for_minutes));
    const types = [...new Set(alerts.map((a) => metricTypeOf(a.type)))];
    let series;
    try {
      series = await this.source.read({ serviceId: vps.id, region: vps.region ?? '' }, types, {
        start: end - minutes * 60,
        end,
        step: EVALUATION_STEP_SECONDS,
      });
    } catch (err) {
      this.logger.warn(`Alerts of ${vps.id} not checked: ${(err as Error).message}`);
      return null;
    }
    return (alert) => {
      const since = end - alert.for_minutes * 60;
      const points = alertPoints(alert.type, series).filter(([t]) => t >= since);
      return { state: stateOf(points, Number(alert.above), alert.state, since), value: points.at(-1)?.[1] ?? null };
    };
  }

  private change(vps: VpsState, alert: AlertRow, to: AlertState, value: number | null): Promise<boolean> {
    const name = to === 'firing' ? 'instance.alert_fired' : 'instance.alert_resolved';
    return this.tx.run(async (m, publish) => {
      if (!(await this.alerts.changeState(m, alert.id, alert.state, to))) return false;
      const facts = { alertId: alert.id, type: alert.type, above: Number(alert.above), forMinutes: alert.for_minutes, value };
      await this.activity.record(m, {
        accountId: vps.accountId,
        action: name,
        entity: { type: 'service', id: vps.id },
        actor: SYSTEM_ACTOR,
        details: facts,
      });
      publish(domainEvent<InstanceAlertEvent>(name, vps.accountId, { serviceId: vps.id, serviceName: vps.name, ...facts }));
      return true;
    });
  }
}
