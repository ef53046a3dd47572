import { Body, Controller, Delete, Get, HttpCode, Patch, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiProblems, CurrentPrincipal, Idempotent, PageQuery, Paginated, PaginatedResponse, Principal, UuidParam } from '@app/core';
import { CreateFirewallRequest, FirewallTargetsRequest, UpdateFirewallRequest } from './dto/firewall.request';
import { FirewallResponse } from './dto/firewall.response';
import { FirewallsService } from './firewalls.service';

const PaginatedFirewalls = PaginatedResponse(FirewallResponse, 'PaginatedFirewalls');

@ApiTags('Firewalls')
@ApiBearerAuth()
@Controller('api/firewalls')
export class FirewallsController {
  constructor(private readonly firewalls: FirewallsService) {}

  @Post()
  @Idempotent()
  @ApiOperation({ summary: 'Create a firewall', operationId: 'createFirewall' })
  @ApiProblems(400, 403, { 409: ['quota_exceeded', 'duplicate_name'] })
  create(@CurrentPrincipal() principal: Principal, @Body() body: CreateFirewallRequest): Promise<FirewallResponse> {
    return this.firewalls.create(principal, body);
  }

  @Get()
  @ApiOperation({ summary: 'List firewalls', operationId: 'listFirewalls' })
  @ApiOkResponse({ type: PaginatedFirewalls })
  @ApiProblems(400)
  list(@CurrentPrincipal() principal: Principal, @Query() query: PageQuery): Promise<Paginated<FirewallResponse>> {
    return this.firewalls.list(principal.accountId, query);
  }

  @Get(':id')
  @ApiOperation({ summary: 'Get a firewall', operationId: 'getFirewall' })
  @ApiProblems(400, 404)
  get(@CurrentPrincipal() principal: Principal, @UuidParam() id: string): Promise<FirewallResponse> {
    return this.firewalls.get(principal.accountId, id);
  }

  @Patch(':id')
  @ApiOperation({ summary: 'Rename a firewall or replace its rules', operationId: 'updateFirewall' })
  @ApiProblems(400, 403, 404, { 409: ['quota_exceeded', 'duplicate_name'] })
  update(
    @CurrentPrincipal() principal: Principal,
    @UuidParam() id: string,
    @Body() body: UpdateFirewallRequest,
  ): Promise<FirewallResponse> {
    return this.firewalls.update(principal, id, body);
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({ summary: 'Delete a firewall that is applied to no VPS', operationId: 'deleteFirewall' })
  @ApiProblems(400, 403, 404, { 409: ['firewall_in_use'] })
  remove(@CurrentPrincipal() principal: Principal, @UuidParam() id: string): Promise<void> {
    return this.firewalls.remove(principal, id);
  }

  @Post(':id/apply')
  @HttpCode(200)
  @ApiOperation({ summary: 'Apply a firewall to VPSes', operationId: 'applyFirewall' })
  @ApiProblems(400, 403, 404, { 409: ['unsupported_network_mode', 'invalid_state'] })
  apply(
    @CurrentPrincipal() principal: Principal,
    @UuidParam() id: string,
    @Body() body: FirewallTargetsRequest,
  ): Promise<FirewallResponse> {
    return this.firewalls.applyTo(principal, id, body);
  }

  @Post(':id/remove')
  @HttpCode(200)
  @ApiOperation({ summary: 'Remove a firewall from VPSes', operationId: 'removeFirewall' })
  @ApiProblems(400, 403, 404)
  detach(
    @CurrentPrincipal() principal: Principal,
    @UuidParam() id: string,
    @Body() body: FirewallTargetsRequest,
  ): Promise<FirewallResponse> {
    return this.firewalls.removeFrom(principal, id, body);
  }
}
