import { Body, Controller, Delete, Get, HttpCode, Patch, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiProblems, CurrentPrincipal, Idempotent, PageQuery, Paginated, PaginatedResponse, Principal, UuidParam } from '@app/core';
import { CreateRecordRequest, UpdateRecordRequest } from '../dto/record.request';
import { RecordResponse } from '../dto/record.response';
import { RecordsService } from './records.service';

const PaginatedRecords = PaginatedResponse(RecordResponse, 'PaginatedDnsRecords');

@ApiTags('DNS')
@ApiBearerAuth()
@Controller('api/dns/zones/:id/records')
export class RecordsController {
  constructor(private readonly records: RecordsService) {}

  @Get()
  @ApiOperation({ summary: "List a DNS zone's records", operationId: 'listDnsRecords' })
  @ApiOkResponse({ type: PaginatedRecords })
  @ApiProblems(400, 404)
  list(@CurrentPrincipal() principal: Principal, @UuidParam() id: string, @Query() query: PageQuery): Promise<Paginated<RecordResponse>> {
    return this.records.list(principal.accountId, id, query);
  }

  @Post()
  @Idempotent()
  @ApiOperation({ summary: 'Add a record to a DNS zone', operationId: 'createDnsRecord' })
  @ApiProblems(400, 403, 404, { 409: ['quota_exceeded'], 503: ['dns_unavailable'] })
  create(@CurrentPrincipal() principal: Principal, @UuidParam() id: string, @Body() body: CreateRecordRequest): Promise<RecordResponse> {
    return this.records.create(principal, id, body);
  }

  @Get(':recordId')
  @ApiOperation({ summary: 'Get a DNS record', operationId: 'getDnsRecord' })
  @ApiProblems(400, 404)
  get(@CurrentPrincipal() principal: Principal, @UuidParam() id: string, @UuidParam('recordId') recordId: string): Promise<RecordResponse> {
    return this.records.get(principal.accountId, id, recordId);
  }

  @Patch(':recordId')
  @ApiOperation({ summary: 'Change a DNS record', operationId: 'updateDnsRecord' })
  @ApiProblems(400, 403, 404, { 503: ['dns_unavailable'] })
  update(
    @CurrentPrincipal() principal: Principal,
    @UuidParam() id: string,
    @UuidParam('recordId') recordId: string,
    @Body() body: UpdateRecordRequest,
  ): Promise<RecordResponse> {
    return this.records.update(principal, id, recordId, body);
  }

  @Delete(':recordId')
  @HttpCode(204)
  @ApiOperation({ summary: 'Delete a DNS record', operationId: 'deleteDnsRecord' })
  @ApiProblems(400, 403, 404, { 503: ['dns_unavailable'] })
  remove(@CurrentPrincipal() principal: Principal, @UuidParam() id: string, @UuidParam('recordId') recordId: string): Promise<void> {
    return this.records.remove(principal, id, recordId);
  }
}
