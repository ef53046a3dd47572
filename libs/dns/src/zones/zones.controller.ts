import { Body, Controller, Delete, Get, Header, HttpCode, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiConsumes, ApiOkResponse, ApiOperation, ApiProduces, ApiTags } from '@nestjs/swagger';
import {
  ApiProblems,
  CurrentPrincipal,
  Idempotent,
  PageQuery,
  Paginated,
  PaginatedResponse,
  Principal,
  Problem,
  UuidParam,
} from '@app/core';
import { CreateZoneRequest } from '../dto/zone.request';
import { ZoneResponse } from '../dto/zone.response';
import { RecordsService } from '../records/records.service';
import { ZonesService } from './zones.service';

const PaginatedZones = PaginatedResponse(ZoneResponse, 'PaginatedDnsZones');

@ApiTags('DNS')
@ApiBearerAuth()
@Controller('api/dns/zones')
export class ZonesController {
  constructor(
    private readonly zones: ZonesService,
    private readonly records: RecordsService,
  ) {}

  @Post()
  @Idempotent()
  @ApiOperation({ summary: 'Create a DNS zone', operationId: 'createDnsZone' })
  @ApiProblems(400, 403, { 409: ['zone_exists', 'quota_exceeded'], 503: ['dns_unavailable'] })
  create(@CurrentPrincipal() principal: Principal, @Body() body: CreateZoneRequest): Promise<ZoneResponse> {
    return this.zones.create(principal, body);
  }

  @Get()
  @ApiOperation({ summary: 'List DNS zones', operationId: 'listDnsZones' })
  @ApiOkResponse({ type: PaginatedZones })
  @ApiProblems(400)
  list(@CurrentPrincipal() principal: Principal, @Query() query: PageQuery): Promise<Paginated<ZoneResponse>> {
    return this.zones.list(principal.accountId, query);
  }

  @Get(':id')
  @ApiOperation({ summary: 'Get a DNS zone', operationId: 'getDnsZone' })
  @ApiProblems(400, 404)
  get(@CurrentPrincipal() principal: Principal, @UuidParam() id: string): Promise<ZoneResponse> {
    return this.zones.get(principal.accountId, id);
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({ summary: 'Delete a DNS zone and its records', operationId: 'deleteDnsZone' })
  @ApiProblems(400, 403, 404, { 503: ['dns_unavailable'] })
  remove(@CurrentPrincipal() principal: Principal, @UuidParam() id: string): Promise<void> {
    return this.zones.remove(principal, id);
  }

  @Get(':id/export')
  @Header('Content-Type', 'text/plain; charset=utf-8')
  @ApiProduces('text/plain')
  @ApiOperation({ summary: 'Export a DNS zone as a BIND zone file', operationId: 'exportDnsZone' })
  @ApiOkResponse({ description: 'The zone in BIND format.', schema: { type: 'string' } })
  @ApiProblems(400, 404)
  export(@CurrentPrincipal() principal: Principal, @UuidParam() id: string): Promise<string> {
    return this.records.export(principal.accountId, id);
  }

  @Post(':id/import')
  @HttpCode(200)
  @ApiConsumes('text/plain')
  @ApiBody({
    description:
      "A BIND zone file. It replaces every record of the zone, or nothing if any line is refused; its SOA and the provider's NS lines are skipped.",
    schema: { type: 'string', example: '$ORIGIN example.com.\n@ 3600 IN A 203.0.113.10\nwww 3600 IN CNAME example.com.\n' },
  })
  @ApiOperation({ summary: "Replace a DNS zone's records by a zone file", operationId: 'importDnsZone' })
  @ApiProblems(400, 403, 404, { 409: ['quota_exceeded'] }, 415, { 503: ['dns_unavailable'] })
  import(@CurrentPrincipal() principal: Principal, @UuidParam() id: string, @Body() body: unknown): Promise<ZoneResponse> {
    if (typeof body !== 'string') throw new Problem(415, 'unsupported_media_type', 'Send the zone file as text/plain.');
    return this.records.import(principal, id, body);
  }
}
