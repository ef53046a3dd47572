import { Controller, Get, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiProblems, CurrentPrincipal, Paginated, PaginatedResponse, Principal, UuidParam } from '@app/core';
import { ListServicesQuery } from './dto/list-services.query';
import { ServiceResponse } from './dto/service.response';
import { ServicesService } from './services.service';

const PaginatedServices = PaginatedResponse(ServiceResponse, 'PaginatedServices');

@ApiTags('Services')
@ApiBearerAuth()
@Controller('api/services')
export class ServicesController {
  constructor(private readonly services: ServicesService) {}

  @Get()
  @ApiOperation({ summary: 'List the services of the account, newest first', operationId: 'listServices' })
  @ApiOkResponse({ type: PaginatedServices })
  @ApiProblems(400, 401, 403, 429)
  list(@CurrentPrincipal() principal: Principal, @Query() query: ListServicesQuery): Promise<Paginated<ServiceResponse>> {
    return this.services.list(principal.accountId, query);
  }

  @Get(':id')
  @ApiOperation({ summary: 'Get a service', operationId: 'getService' })
  @ApiOkResponse({ type: ServiceResponse })
  @ApiProblems(400, 401, 403, 404, 429)
  get(@CurrentPrincipal() principal: Principal, @UuidParam() id: string): Promise<ServiceResponse> {
    return this.services.get(principal.accountId, id);
  }
}
