import { Body, Controller, Delete, Get, Header, HttpCode, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import {
  ApiProblems,
  CurrentPrincipal,
  PageQuery,
  Paginated,
  PaginatedResponse,
  Principal,
  RequireRole,
  RequireScope,
  UuidParam,
} from '@app/core';
import { ApiKeysService } from './api-keys.service';
import { ApiKeyResponse, CreatedApiKeyResponse } from './dto/api-key.response';
import { CreateApiKeyRequest } from './dto/create-api-key.request';

const PaginatedApiKeys = PaginatedResponse(ApiKeyResponse, 'PaginatedApiKeys');

@ApiTags('API Keys')
@ApiBearerAuth()
@RequireScope('write')
// Every member manages their own keys; a read-only member's carry the read scope only.
@RequireRole('read_only')
@Controller('api/auth/api-keys')
export class ApiKeysController {
  constructor(private readonly apiKeys: ApiKeysService) {}

  @Post()
  @Header('Cache-Control', 'no-store')
  @ApiOperation({ summary: 'Create an API key (its secret is shown only in this response)', operationId: 'createApiKey' })
  @ApiProblems(
    400,
    401,
    { 403: ['insufficient_scope', 'insufficient_role', 'forbidden', 'email_unverified'], 409: ['quota_exceeded'] },
    429,
  )
  create(@CurrentPrincipal() principal: Principal, @Body() body: CreateApiKeyRequest): Promise<CreatedApiKeyResponse> {
    return this.apiKeys.createFor(principal, body);
  }

  @Get()
  @ApiOperation({ summary: "List the caller's own API keys on this account", operationId: 'listApiKeys' })
  @ApiOkResponse({ type: PaginatedApiKeys })
  @ApiProblems(400, 401, 403, 429)
  list(@CurrentPrincipal() principal: Principal, @Query() query: PageQuery): Promise<Paginated<ApiKeyResponse>> {
    return this.apiKeys.list(principal, query);
  }

  @Get(':id')
  @ApiOperation({ summary: 'Get an API key', operationId: 'getApiKey' })
  @ApiProblems(400, 401, 403, 404, 429)
  get(@CurrentPrincipal() principal: Principal, @UuidParam() id: string): Promise<ApiKeyResponse> {
    return this.apiKeys.get(principal, id);
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({ summary: 'Revoke an API key; it stops working at once', operationId: 'revokeApiKey' })
  @ApiProblems(400, 401, 403, 404, 429)
  revoke(@CurrentPrincipal() principal: Principal, @UuidParam() id: string): Promise<void> {
    return this.apiKeys.revoke(principal, id);
  }
}
