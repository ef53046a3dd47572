import { Body, Controller, Get, Header, HttpCode, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiProblems, CurrentPrincipal, Idempotent, Paginated, PaginatedResponse, Principal, RateLimit, UuidParam } from '@app/core';
import { AttachmentsService } from '../attachments/attachments.service';
import { PresignRequest } from '../attachments/dto/attachment.request';
import { PresignResponse } from '../attachments/dto/attachment.response';
import { CreateTicketRequest, ListTicketsQuery, ReplyRequest } from './dto/ticket.request';
import { TicketMessageResponse, TicketResponse, TicketWithMessagesResponse } from './dto/ticket.response';
import { TicketsService } from './tickets.service';

const PaginatedTickets = PaginatedResponse(TicketResponse, 'PaginatedTickets');

@ApiTags('Support')
@ApiBearerAuth()
@Controller('api/support/tickets')
export class TicketsController {
  constructor(
    private readonly tickets: TicketsService,
    private readonly attachments: AttachmentsService,
  ) {}

  @Post('attachments/presign')
  @Header('Cache-Control', 'no-store')
  @Idempotent()
  @HttpCode(200)
  @RateLimit('presign')
  @ApiOperation({ summary: 'Get upload URLs for ticket attachments (valid 15 minutes)', operationId: 'presignTicketAttachments' })
  @ApiOkResponse({ type: PresignResponse })
  @ApiProblems(400, 403, 422)
  presign(@CurrentPrincipal() principal: Principal, @Body() body: PresignRequest): Promise<PresignResponse> {
    return this.attachments.presign(principal.accountId, body.files);
  }

  @Post()
  @Header('Cache-Control', 'no-store')
  @Idempotent()
  @HttpCode(200)
  @RateLimit('ticket-create')
  @ApiOperation({ summary: 'Open a support ticket', operationId: 'createTicket' })
  @ApiOkResponse({ type: TicketWithMessagesResponse })
  @ApiProblems({ 400: ['invalid_input', 'attachment_invalid'], 409: ['attachment_in_use'] }, 403, 422)
  create(@CurrentPrincipal() principal: Principal, @Body() body: CreateTicketRequest): Promise<TicketWithMessagesResponse> {
    return this.tickets.create(principal, body);
  }

  @Get()
  @ApiOperation({ summary: 'List support tickets', operationId: 'listTickets' })
  @ApiOkResponse({ type: PaginatedTickets })
  @ApiProblems(400)
  list(@CurrentPrincipal() principal: Principal, @Query() query: ListTicketsQuery): Promise<Paginated<TicketResponse>> {
    return this.tickets.list(principal.accountId, query);
  }

  @Get(':id')
  @Header('Cache-Control', 'no-store')
  @ApiOperation({ summary: 'Get a ticket with its messages', operationId: 'getTicket' })
  @ApiOkResponse({ type: TicketWithMessagesResponse })
  @ApiProblems(400, 404)
  get(@CurrentPrincipal() principal: Principal, @UuidParam() id: string): Promise<TicketWithMessagesResponse> {
    return this.tickets.get(principal.accountId, id);
  }

  @Post(':id/reply')
  @Header('Cache-Control', 'no-store')
  @Idempotent()
  @ApiOperation({ summary: 'Reply to a ticket', operationId: 'replyToTicket' })
  @ApiCreatedResponse({ type: TicketMessageResponse })
  @ApiProblems({ 400: ['invalid_input', 'attachment_invalid'], 409: ['ticket_closed', 'attachment_in_use'] }, 403, 404, 422)
  reply(@CurrentPrincipal() principal: Principal, @UuidParam() id: string, @Body() body: ReplyRequest): Promise<TicketMessageResponse> {
    return this.tickets.reply(principal, id, body);
  }

  @Post(':id/close')
  @Idempotent()
  @HttpCode(200)
  @ApiOperation({ summary: 'Close a ticket (idempotent)', operationId: 'closeTicket' })
  @ApiOkResponse({ type: TicketResponse })
  @ApiProblems(400, 403, 404, 422)
  close(@CurrentPrincipal() principal: Principal, @UuidParam() id: string): Promise<TicketResponse> {
    return this.tickets.close(principal, id);
  }
}
