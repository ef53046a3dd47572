import { Controller, Get, HttpCode, Post, Query, Req, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiProduces, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { ApiProblems, CurrentPrincipal, Idempotent, Paginated, PaginatedResponse, Principal, UuidParam } from '@app/core';
import { ListNotificationsQuery } from './dto/list-notifications.query';
import { NotificationResponse, ReadAllResponse, UnreadCountResponse } from './dto/notification.response';
import { NotificationsService } from './notifications.service';
import { NotificationHub } from './stream/notification-hub';
import { StreamCredentials } from './stream/stream-credentials';

const PaginatedNotifications = PaginatedResponse(NotificationResponse, 'PaginatedNotifications');

@ApiTags('Notifications')
@ApiBearerAuth()
@Controller('api/notifications')
export class NotificationsController {
  constructor(
    private readonly notifications: NotificationsService,
    private readonly hub: NotificationHub,
    private readonly credentials: StreamCredentials,
  ) {}

  @Get()
  @ApiOperation({ summary: 'List notifications, newest first', operationId: 'listNotifications' })
  @ApiOkResponse({ type: PaginatedNotifications })
  @ApiProblems(400)
  list(@CurrentPrincipal() principal: Principal, @Query() query: ListNotificationsQuery): Promise<Paginated<NotificationResponse>> {
    return this.notifications.list(principal.accountId, query);
  }

  @Get('unread-count')
  @ApiOperation({ summary: 'Count unread notifications', operationId: 'getUnreadNotificationCount' })
  @ApiOkResponse({ type: UnreadCountResponse })
  @ApiProblems()
  unreadCount(@CurrentPrincipal() principal: Principal): Promise<UnreadCountResponse> {
    return this.notifications.unreadCount(principal.accountId);
  }

  @Get('stream')
  @ApiProduces('text/event-stream')
  @ApiOperation({
    summary: 'Live stream of new notifications and the unread count (Server-Sent Events)',
    description:
      'Events: `notification` (a NotificationResponse) and `unread-count` ({count}), plus heartbeat comments. ' +
      'The stream starts with the current unread count; on server shutdown it ends with a `shutdown` event and a reconnect hint. ' +
      'It also ends with `error` ({code, detail}) when its credential is revoked or expires (code `unauthorized`: refresh, then reconnect) ' +
      'or when a newer stream of the account takes its place (code `too_many_streams`), and with `reconnect` after its maximum lifetime. ' +
      'Too many streams from one address: 429.',
    operationId: 'streamNotifications',
  })
  @ApiOkResponse({ description: 'An event stream.', content: { 'text/event-stream': { schema: { type: 'string', maxLength: 65536 } } } })
  @ApiProblems(429)
  stream(@CurrentPrincipal() principal: Principal, @Req() req: Request, @Res() res: Response): Promise<void> {
    return this.hub.open(this.credentials.of(principal, req), req.ip ?? 'unknown', res);
  }

  @Post('read-all')
  @Idempotent()
  @HttpCode(200)
  @ApiOperation({ summary: 'Mark all notifications read', operationId: 'markAllNotificationsRead' })
  @ApiOkResponse({ type: ReadAllResponse })
  @ApiProblems(403)
  readAll(@CurrentPrincipal() principal: Principal): Promise<ReadAllResponse> {
    return this.notifications.markAllRead(principal.accountId);
  }

  @Get(':id')
  @ApiOperation({ summary: 'Get a notification', operationId: 'getNotification' })
  @ApiOkResponse({ type: NotificationResponse })
  @ApiProblems(400, 404)
  get(@CurrentPrincipal() principal: Principal, @UuidParam() id: string): Promise<NotificationResponse> {
    return this.notifications.get(principal.accountId, id);
  }

  @Post(':id/read')
  @Idempotent()
  @HttpCode(200)
  @ApiOperation({ summary: 'Mark a notification read (idempotent)', operationId: 'markNotificationRead' })
  @ApiOkResponse({ type: NotificationResponse })
  @ApiProblems(400, 403, 404)
  read(@CurrentPrincipal() principal: Principal, @UuidParam() id: string): Promise<NotificationResponse> {
    return this.notifications.markRead(principal.accountId, id);
  }
}
