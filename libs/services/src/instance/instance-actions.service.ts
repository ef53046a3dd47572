import { Injectable } from '@nestjs/common';
import { AppConfig, isUniqueViolation, Paginated, paginated, PageQuery, pageOffset, Problem, TransactionRunner } from '@app/core';
import { ServicesRepository } from '../services.repository';
import type { ActionType } from '../service.types';
import { InstanceActionResponse } from './dto/instance-action.response';
import { InstanceActionRunner } from './instance-action-runner';
import { ACTION_COLUMNS, ActionRow } from './instance-actions.queries';
import { planAction } from './power-state-machine';
import { VpsLookup } from './vps-lookup';

@Injectable()
export class InstanceActionsService {
  constructor(
    private readonly services: ServicesRepository,
    private readonly vps: VpsLookup,
    private readonly tx: TransactionRunner,
    private readonly runner: InstanceActionRunner,
    private readonly config: AppConfig,
  ) {}

  /**
   * Records the action and the transitional power state under the service row lock, so of two
   * concurrent requests exactly one begins; the runner then drives the provider after COMMIT.
   */
  async request(accountId: string, serviceId: string, type: ActionType): Promise<InstanceActionResponse> {
    const row = await this.tx
      .run(async (m) => {
        const service = await this.services.lockForAccount(m, accountId, serviceId);
        if (!service) throw Problem.notFound('Service');
        if (service.type !== 'vps' || !service.powerState) throw VpsLookup.noInstance();
        const running: unknown[] = await m.query(`SELECT 1 FROM instance_actions WHERE service_id = $1 AND status = 'running'`, [serviceId]);
        const plan = planAction({ serviceStatus: service.status, powerState: service.powerState, actionRunning: running.length > 0 }, type);
        if (!plan.ok) throw Problem.conflict(plan.code, plan.detail);
        const [action]: ActionRow[] = await m.query(
          `INSERT INTO instance_actions (service_id, type, status, from_state) VALUES ($1, $2, 'running', $3) RETURNING ${ACTION_COLUMNS}`,
          [serviceId, type, service.powerState],
        );
        await m.query(`UPDATE vps_instances SET power_state = $2, updated_at = now() WHERE service_id = $1`, [serviceId, plan.transitional]);
        return action;
      })
      .catch((err: unknown) => {
        if (isUniqueViolation(err, 'instance_actions_one_running_idx')) {
          throw Problem.conflict('action_in_progress', 'Another action on this instance is still running.');
        }
        throw err;
      });
    this.runner.kick(row.id);
    return InstanceActionResponse.fromRow(row);
  }

  async list(accountId: string, serviceId: string, query: PageQuery): Promise<Paginated<InstanceActionResponse>> {
    await this.vps.require(accountId, serviceId);
    const [{ total }]: { total: number }[] = await this.vps.manager.query(
      `SELECT count(*)::int AS total FROM instance_actions WHERE service_id = $1`,
      [serviceId],
    );
    const rows: ActionRow[] = await this.vps.manager.query(
      `SELECT ${ACTION_COLUMNS} FROM instance_actions WHERE service_id = $1
        ORDER BY started_at DESC, id DESC LIMIT $2 OFFSET $3::bigint`,
      [serviceId, query.pageSize, pageOffset(query)],
    );
    return paginated(rows.map(InstanceActionResponse.fromRow), query, total);
  }

  async get(accountId: string, serviceId: string, actionId: string): Promise<InstanceActionResponse> {
    await this.vps.require(accountId, serviceId);
    const [row]: ActionRow[] = await this.vps.manager.query(`SELECT ${ACTION_COLUMNS} FROM instance_actions WHERE id = $1 AND service_id = $2`, [
      actionId,
      serviceId,
    ]);
    if (!row) throw Problem.notFound('Action');
    return InstanceActionResponse.fromRow(row);
  }

  locationOf(action: InstanceActionResponse): string {
    return `${this.config.publicUrl}/api/services/${action.serviceId}/instance/actions/${action.id}`;
  }
}
