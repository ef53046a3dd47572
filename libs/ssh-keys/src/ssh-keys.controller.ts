import { Body, Controller, Delete, Get, HttpCode, Patch, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiProblems, CurrentPrincipal, Idempotent, PageQuery, Paginated, PaginatedResponse, Principal, UuidParam } from '@app/core';
import { CreateSshKeyRequest, UpdateSshKeyRequest } from './dto/ssh-key.request';
import { SshKeyResponse } from './dto/ssh-key.response';
import { SshKeysService } from './ssh-keys.service';

const PaginatedSshKeys = PaginatedResponse(SshKeyResponse, 'PaginatedSshKeys');

@ApiTags('SSH Keys')
@ApiBearerAuth()
@Controller('api/ssh-keys')
export class SshKeysController {
  constructor(private readonly sshKeys: SshKeysService) {}

  @Post()
  @Idempotent()
  @ApiOperation({ summary: 'Add an SSH public key', operationId: 'createSshKey' })
  @ApiProblems(400, 403, { 409: ['quota_exceeded', 'duplicate_key'] })
  create(@CurrentPrincipal() principal: Principal, @Body() body: CreateSshKeyRequest): Promise<SshKeyResponse> {
    return this.sshKeys.create(principal, body);
  }

  @Get()
  @ApiOperation({ summary: 'List SSH keys', operationId: 'listSshKeys' })
  @ApiOkResponse({ type: PaginatedSshKeys })
  @ApiProblems(400)
  list(@CurrentPrincipal() principal: Principal, @Query() query: PageQuery): Promise<Paginated<SshKeyResponse>> {
    return this.sshKeys.list(principal.accountId, query);
  }

  @Get(':id')
  @ApiOperation({ summary: 'Get an SSH key', operationId: 'getSshKey' })
  @ApiProblems(400, 404)
  get(@CurrentPrincipal() principal: Principal, @UuidParam() id: string): Promise<SshKeyResponse> {
    return this.sshKeys.get(principal.accountId, id);
  }

  @Patch(':id')
  @ApiOperation({ summary: 'Rename an SSH key', operationId: 'updateSshKey' })
  @ApiProblems(400, 403, 404)
  rename(@CurrentPrincipal() principal: Principal, @UuidParam() id: string, @Body() body: UpdateSshKeyRequest): Promise<SshKeyResponse> {
    return this.sshKeys.rename(principal, id, body);
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({ summary: 'Delete an SSH key', operationId: 'deleteSshKey' })
  @ApiProblems(400, 403, 404)
  remove(@CurrentPrincipal() principal: Principal, @UuidParam() id: string): Promise<void> {
    return this.sshKeys.remove(principal, id);
  }
}
