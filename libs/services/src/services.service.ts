import { Injectable } from '@nestjs/common';
import { Paginated, paginated, Problem } from '@app/core';
import { ListServicesQuery } from './dto/list-services.query';
import { ServiceResponse } from './dto/service.response';
import { ServiceKinds } from './kinds/service-kinds';
import { ServicesRepository } from './services.repository';

@Injectable()
export class ServicesService {
  constructor(
    private readonly services: ServicesRepository,
    private readonly kinds: ServiceKinds,
  ) {}

  async list(accountId: string, query: ListServicesQuery): Promise<Paginated<ServiceResponse>> {
    const { rows, total } = await this.services.page(accountId, { type: query.type, status: query.status }, query);
    const parts = await this.kinds.partsOf(rows);
    return paginated(
      rows.map((row) => ServiceResponse.fromRow(row, parts.get(row.id))),
      query,
      total,
    );
  }

  async get(accountId: string, id: string): Promise<ServiceResponse> {
    const row = await this.services.findOneForAccount(accountId, id);
    if (!row) throw Problem.notFound('Service');
    // What the kind shows may change on a refresh (a VPS's power state); the services row does not.
    await this.kinds.of(row.type).refresh(accountId, id);
    return ServiceResponse.fromRow(row, (await this.kinds.partsOf([row])).get(id));
  }
}
