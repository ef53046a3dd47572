import { Injectable } from '@nestjs/common';
import { ActivityLog, PageQuery, paginated, Paginated, Principal, Problem, TransactionRunner } from '@app/core';
import { VpsStates } from '@app/vps';
import { liveVps } from '../live-vps';
import { MAX_ALERTS_PER_VPS, maxAbove } from './alert-rules';
import { AlertsRepository } from './alerts.repository';
import { InstanceAlertResponse } from './dto/alert.response';
import { CreateInstanceAlertRequest } from './dto/create-alert.request';

/** A VPS's metric alerts for its owner: at most MAX_ALERTS_PER_VPS each. */
@Injectable()
export class AlertsService {
  constructor(
    private readonly alerts: AlertsRepository,
    private readonly vps: VpsStates,
    private readonly tx: TransactionRunner,
    private readonly activity: ActivityLog,
  ) {}

  async create(caller: Principal, serviceId: string, input: CreateInstanceAlertRequest): Promise<InstanceAlertResponse> {
    if (input.above > maxAbove(input.type)) {
      const message = `must be at most ${maxAbove(input.type)} for ${input.type}`;
      throw Problem.invalidInput(`above ${message}`, [{ field: 'above', message }]);
    }
    const { accountId } = caller;
    const row = await this.tx.run(async (m) => {
      liveVps(await this.vps.lockFor(m, accountId, serviceId));
      if ((await this.alerts.countForService(m, serviceId)) >= MAX_ALERTS_PER_VPS) {
        throw Problem.conflict('quota_exceeded', `A VPS can have at most ${MAX_ALERTS_PER_VPS} alerts; delete one first.`);
      }
      const alert = await this.alerts.insert(m, { accountId, serviceId, ...input });
      await this.activity.record(m, {
        accountId,
        caller,
        action: 'instance.alert_create',
        entity: { type: 'service', id: serviceId },
        details: { alertId: alert.id, type: alert.type, above: input.above, forMinutes: alert.for_minutes },
      });
      return alert;
    });
    return InstanceAlertResponse.from(row);
  }

  async list(accountId: string, serviceId: string, query: PageQuery): Promise<Paginated<InstanceAlertResponse>> {
    liveVps(await this.vps.forAccount(accountId, serviceId));
    const { rows, total } = await this.alerts.page(accountId, serviceId, query);
    return paginated(rows.map(InstanceAlertResponse.from), query, total);
  }

  async remove(caller: Principal, serviceId: string, alertId: string): Promise<void> {
    const { accountId } = caller;
    const done = await this.tx.run(async (m) => {
      const alert = await this.alerts.deleteForAccount(m, accountId, serviceId, alertId);
      if (!alert) return false;
      await this.activity.record(m, {
        accountId,
        caller,
        action: 'instance.alert_delete',
        entity: { type: 'service', id: serviceId },
        details: { alertId, type: alert.type },
      });
      return true;
    });
    if (!done) throw Problem.notFound('Alert');
  }
}
