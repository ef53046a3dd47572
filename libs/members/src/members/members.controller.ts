import { Body, Controller, Delete, Get, HttpCode, Patch, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiProblems, CurrentPrincipal, PageQuery, Paginated, PaginatedResponse, Principal, RequireRole, UuidParam } from '@app/core';
import { MemberResponse } from './dto/member.response';
import { UpdateMemberRequest } from './dto/update-member.request';
import { MembersService } from './members.service';

const PaginatedMembers = PaginatedResponse(MemberResponse, 'PaginatedMembers');

@ApiTags('Members')
@ApiBearerAuth()
@Controller('api/account/members')
export class MembersController {
  constructor(private readonly members: MembersService) {}

  @Get()
  @ApiOperation({ summary: "List the account's members, first to join first", operationId: 'listMembers' })
  @ApiOkResponse({ type: PaginatedMembers })
  @ApiProblems(400)
  list(@CurrentPrincipal() principal: Principal, @Query() query: PageQuery): Promise<Paginated<MemberResponse>> {
    return this.members.list(principal, query);
  }

  @Patch(':memberId')
  @RequireRole('admin')
  @ApiOperation({
    summary: "Change a member's role; a lower one revokes their API keys and what they hold open at once",
    operationId: 'updateMember',
  })
  @ApiProblems(400, 404, { 409: ['last_owner'] })
  update(
    @CurrentPrincipal() principal: Principal,
    @UuidParam('memberId') memberId: string,
    @Body() body: UpdateMemberRequest,
  ): Promise<MemberResponse> {
    return this.members.changeRole(principal, memberId, body.role);
  }

  @Delete(':memberId')
  @HttpCode(204)
  // Any member may leave (their own id); removing another needs admin, which the service checks.
  @RequireRole('read_only')
  @ApiOperation({
    summary:
      'Remove a member, or leave (your own member id): their API keys end at once; their sessions, consoles, streams and MCP sessions lose the account',
    operationId: 'removeMember',
  })
  @ApiProblems(400, 404, { 409: ['last_owner'] })
  remove(@CurrentPrincipal() principal: Principal, @UuidParam('memberId') memberId: string): Promise<void> {
    return this.members.remove(principal, memberId);
  }
}
