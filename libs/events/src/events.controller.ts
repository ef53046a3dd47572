import { Controller, Get, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiProblems, CurrentPrincipal, Paginated, PaginatedResponse, Principal, UuidParam } from '@app/core';
import { EventResponse } from './dto/event.response';
import { ListEventsQuery } from './dto/list-events.query';
import { EventsService } from './events.service';

const PaginatedEvents = PaginatedResponse(EventResponse, 'PaginatedEvents');

@ApiTags('Events')
@ApiBearerAuth()
@Controller('api/events')
export class EventsController {
  constructor(private readonly events: EventsService) {}

  @Get()
  @ApiOperation({ summary: "List the account's activity log, newest first", operationId: 'listEvents' })
  @ApiOkResponse({ type: PaginatedEvents })
  @ApiProblems(400)
  list(@CurrentPrincipal() principal: Principal, @Query() query: ListEventsQuery): Promise<Paginated<EventResponse>> {
    return this.events.list(principal.accountId, query);
  }

  @Get(':id')
  @ApiOperation({ summary: 'Get an activity log entry', operationId: 'getEvent' })
  @ApiOkResponse({ type: EventResponse })
  @ApiProblems(400, 404)
  get(@CurrentPrincipal() principal: Principal, @UuidParam() id: string): Promise<EventResponse> {
    return this.events.get(principal.accountId, id);
  }
}
