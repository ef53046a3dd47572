import { Controller, Delete, Get, HttpCode, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiProblems, CurrentPrincipal, LoginRoute, PageQuery, Paginated, PaginatedResponse, Principal, UuidParam } from '@app/core';
import { SessionResponse } from './dto/session.response';
import { SessionsService } from './sessions.service';

@ApiTags('Auth')
@ApiBearerAuth()
@LoginRoute()
@Controller('api/auth/sessions')
export class SessionsController {
  constructor(private readonly sessions: SessionsService) {}

  @Get()
  @ApiOperation({ summary: 'Where the account is signed in (live sessions, newest first)', operationId: 'listSessions' })
  @ApiOkResponse({ type: PaginatedResponse(SessionResponse, 'PaginatedSessions') })
  @ApiProblems(400, 401, { 403: ['forbidden'] }, 429)
  list(@CurrentPrincipal() principal: Principal, @Query() query: PageQuery): Promise<Paginated<SessionResponse>> {
    return this.sessions.list(principal, query);
  }

  @Delete()
  @HttpCode(204)
  @ApiOperation({ summary: 'End every session but the current one', operationId: 'revokeOtherSessions' })
  @ApiProblems(401, { 403: ['forbidden'] }, 429)
  revokeOthers(@CurrentPrincipal() principal: Principal): Promise<void> {
    return this.sessions.revokeOthers(principal);
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({
    summary: 'End a session (its refresh and access tokens)',
    description:
      "Any live session of the account, the caller's own included: with the id of the current session (`current: true` in " +
      'GET /api/auth/sessions) this is a logout: it answers 204, and the access token that made the request and its ' +
      'refresh token stop working at once (the next request with them is 401 `unauthorized`). ' +
      'To end every session but the current one, use DELETE /api/auth/sessions.',
    operationId: 'revokeSession',
  })
  @ApiProblems(400, 401, { 403: ['forbidden'] }, 404, 429)
  revoke(@CurrentPrincipal() principal: Principal, @UuidParam() id: string): Promise<void> {
    return this.sessions.revoke(principal, id);
  }
}
