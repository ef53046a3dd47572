import { Controller, Get, Header } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiProblems, CurrentPrincipal, Principal, RateLimit, RequireRole, RequireScope, UuidParam } from '@app/core';
import { ConsoleIssuer } from './console-issuer';
import { ConsoleSessionResponse } from './dto/console-session.response';

/** A VPS's console: a single-use URL to its display. */
@ApiTags('Services')
@ApiBearerAuth()
@Controller('api/services/:id/instance')
export class ConsoleController {
  constructor(private readonly consoles: ConsoleIssuer) {}

  @Get('console')
  @RequireScope('write')
  @RequireRole('member')
  @RateLimit('console')
  @Header('Cache-Control', 'no-store')
  @ApiOperation({ summary: 'Create a VNC console session (single use, 60 seconds)', operationId: 'openInstanceConsole' })
  @ApiOkResponse({ type: ConsoleSessionResponse })
  @ApiProblems(400, 401, 403, 404, { 409: ['invalid_state', 'quota_exceeded'], 503: ['unavailable', 'hypervisor_unavailable'] }, 429)
  console(@CurrentPrincipal() principal: Principal, @UuidParam() id: string): Promise<ConsoleSessionResponse> {
    return this.consoles.open(principal, id);
  }
}
