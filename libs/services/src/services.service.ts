import { Injectable } from '@nestjs/common';
import { Paginated, paginated, Problem } from '@app/core';
import { ListServicesQuery } from './dto/list-services.query';
import { ServiceResponse } from './dto/service.response';
import { PowerStateSync } from '@app/vps';
import { ServicesRepository } from './services.repository';

@Injectable()
export class ServicesService {
  constructor(
    private readonly services: ServicesRepository,
    private readonly sync: PowerStateSync,
  ) {}

  async list(accountId: string, query: ListServicesQuery): Promise<Paginated<ServiceResponse>> {
    const { rows, total } = await this.services.page(accountId, { type: query.type, status: query.status }, query);
    return paginated(rows.map(ServiceResponse.fromRow), query, total);
  }

  async get(accountId: string, id: string): Promise<ServiceResponse> {
    await this.sync.refreshForAccount(accountId, id);
    const row = await this.services.findOneForAccount(accountId, id);
    if (!row) throw Problem.notFound('Service');
    return ServiceResponse.fromRow(row);
  }
}
