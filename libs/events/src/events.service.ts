import { Injectable } from '@nestjs/common';
import { Paginated, paginated, Problem } from '@app/core';
import { ActivityRepository } from './activity.repository';
import { EventResponse } from './dto/event.response';
import { ListEventsQuery } from './dto/list-events.query';

@Injectable()
export class EventsService {
  constructor(private readonly repository: ActivityRepository) {}

  async list(accountId: string, query: ListEventsQuery): Promise<Paginated<EventResponse>> {
    const { entries, total } = await this.repository.page(accountId, query, {
      action: query.action,
      entityType: query.entityType,
      entityId: query.entityId,
      actorMemberId: query.actor,
      since: query.since ? new Date(query.since) : undefined,
    });
    return paginated(entries.map(EventResponse.fromEntry), query, total);
  }

  async get(accountId: string, id: string): Promise<EventResponse> {
    const entry = await this.repository.findOneForAccount(accountId, id);
    if (!entry) throw Problem.notFound('Event');
    return EventResponse.fromEntry(entry);
  }
}
