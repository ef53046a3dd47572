import { Body, Controller, Delete, Get, Header, HttpCode, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import {
  ApiProblems,
  CurrentPrincipal,
  Idempotent,
  LoginRoute,
  PageQuery,
  Paginated,
  PaginatedResponse,
  Principal,
  RequireRole,
  UuidParam,
} from '@app/core';
import { AcceptedInvitationResponse, AcceptInvitationRequest, CreateInvitationRequest, InvitationResponse } from './dto/invitation.dto';
import { InvitationsService } from './invitations.service';

const PaginatedInvitations = PaginatedResponse(InvitationResponse, 'PaginatedInvitations');

@ApiTags('Members')
@ApiBearerAuth()
@Controller('api/account/invitations')
export class InvitationsController {
  constructor(private readonly invitations: InvitationsService) {}

  @Post()
  @Idempotent()
  @RequireRole('admin')
  @ApiOperation({
    summary: 'Invite an address to the account with a role (a single-use link is mailed to it)',
    operationId: 'createInvitation',
  })
  @ApiProblems(400, { 409: ['already_member', 'quota_exceeded'] })
  create(@CurrentPrincipal() principal: Principal, @Body() body: CreateInvitationRequest): Promise<InvitationResponse> {
    return this.invitations.create(principal, body);
  }

  @Get()
  @ApiOperation({ summary: 'List pending invitations, newest first', operationId: 'listInvitations' })
  @ApiOkResponse({ type: PaginatedInvitations })
  @ApiProblems(400)
  list(@CurrentPrincipal() principal: Principal, @Query() query: PageQuery): Promise<Paginated<InvitationResponse>> {
    return this.invitations.list(principal, query);
  }

  @Delete(':id')
  @HttpCode(204)
  @RequireRole('admin')
  @ApiOperation({ summary: 'Delete a pending invitation (its link stops working)', operationId: 'deleteInvitation' })
  @ApiProblems(400, 404)
  remove(@CurrentPrincipal() principal: Principal, @UuidParam() id: string): Promise<void> {
    return this.invitations.remove(principal, id);
  }
}

@ApiTags('Auth')
@ApiBearerAuth()
@LoginRoute()
@Controller('api/auth/invitations')
export class InvitationAcceptanceController {
  constructor(private readonly invitations: InvitationsService) {}

  @Post('accept')
  @HttpCode(200)
  @Header('Cache-Control', 'no-store')
  @ApiOperation({
    summary: "Join the account of an invitation sent to the signed-in login's confirmed address",
    operationId: 'acceptInvitation',
  })
  @ApiProblems(400, {
    400: ['invalid_token'],
    403: ['forbidden', 'email_unverified', 'invitation_for_another_address'],
    409: ['already_member'],
  })
  accept(@CurrentPrincipal() principal: Principal, @Body() body: AcceptInvitationRequest): Promise<AcceptedInvitationResponse> {
    return this.invitations.accept(principal, body.token);
  }
}
