import { Controller, Delete, Get, HttpCode, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiProblems, CurrentPrincipal, Paginated, PageQuery, PaginatedResponse, Principal, UuidParam } from '@app/core';
import { SessionResponse } from './dto/session.response';
import { SessionsService } from './sessions.service';

@ApiTags('Auth')
@ApiBearerAuth()
@Controller('api/auth/sessions')
export class SessionsController {
  constructor(private readonly sessions: SessionsService) {}

  @Get()
  @ApiOperation({ summary: 'Where the account is signed in (live sessions, newest first)', operationId: 'listSessions' })
  @ApiOkResponse({ type: PaginatedResponse(SessionResponse, 'PaginatedSessions') })
  @ApiProblems(400, 401, 403, 429)
  list(@CurrentPrincipal() principal: Principal, @Query() query: PageQuery): Promise<Paginated<SessionResponse>> {
    return this.sessions.list(principal, query);
  }

  @Delete()
  @HttpCode(204)
  @ApiOperation({ summary: 'End every session but the current one', operationId: 'revokeOtherSessions' })
  @ApiProblems(401, 403, 429)
  revokeOthers(@CurrentPrincipal() principal: Principal): Promise<void> {
    return this.sessions.revokeOthers(principal);
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({ summary: 'End a session (its refresh and access tokens)', operationId: 'revokeSession' })
  @ApiProblems(400, 401, 403, 404, 429)
  revoke(@CurrentPrincipal() principal: Principal, @UuidParam() id: string): Promise<void> {
    return this.sessions.revoke(principal, id);
  }
}
