import { Injectable } from '@nestjs/common';
import { PageQuery, Paginated, paginated, Problem } from '@app/core';
import { VpsOwnership } from '../instances/vps-ownership';
import { InstanceActionResponse } from './dto/instance-action.response';
import { InstanceActionsRepository } from './instance-actions.repository';

/** The power actions of the caller's VPS, as they were requested and ended. */
@Injectable()
export class InstanceActionHistory {
  constructor(
    private readonly ownership: VpsOwnership,
    private readonly actions: InstanceActionsRepository,
  ) {}

  async list(accountId: string, serviceId: string, query: PageQuery): Promise<Paginated<InstanceActionResponse>> {
    await this.ownership.requireVps(accountId, serviceId);
    const { rows, total } = await this.actions.page(serviceId, query);
    return paginated(rows.map(InstanceActionResponse.fromRow), query, total);
  }

  async get(accountId: string, serviceId: string, actionId: string): Promise<InstanceActionResponse> {
    await this.ownership.requireVps(accountId, serviceId);
    const row = await this.actions.findForService(serviceId, actionId);
    if (!row) throw Problem.notFound('Action');
    return InstanceActionResponse.fromRow(row);
  }
}
