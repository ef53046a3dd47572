import { Body, Controller, Delete, Get, HttpCode, Patch, Post, Query } from '@nestjs/common';
import { ApiAcceptedResponse, ApiBearerAuth, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import {
  ApiProblems,
  CurrentPrincipal,
  Idempotent,
  PageQuery,
  Paginated,
  PaginatedResponse,
  Principal,
  RequireRole,
  UuidParam,
} from '@app/core';
import { DeliveriesService } from './delivery/deliveries.service';
import { DeliveryHistory } from './delivery/delivery-history';
import { WebhookDeliveryAttemptResponse } from './dto/delivery-attempt.response';
import { WebhookDeliveryResponse } from './dto/delivery.response';
import { CreateWebhookRequest, UpdateWebhookRequest } from './dto/webhook.request';
import { WebhookResponse, WebhookWithSecretResponse } from './dto/webhook.response';
import { WebhooksService } from './webhooks.service';

const PaginatedWebhooks = PaginatedResponse(WebhookResponse, 'PaginatedWebhooks');
const PaginatedDeliveries = PaginatedResponse(WebhookDeliveryResponse, 'PaginatedWebhookDeliveries');
const PaginatedAttempts = PaginatedResponse(WebhookDeliveryAttemptResponse, 'PaginatedWebhookDeliveryAttempts');

@ApiTags('Webhooks')
@ApiBearerAuth()
@Controller('api/webhooks')
export class WebhooksController {
  constructor(
    private readonly webhooks: WebhooksService,
    private readonly deliveries: DeliveriesService,
    private readonly history: DeliveryHistory,
  ) {}

  @Post()
  @Idempotent()
  @RequireRole('admin')
  @ApiOperation({ summary: 'Add a webhook endpoint (the signing secret is shown once)', operationId: 'createWebhook' })
  @ApiCreatedResponse({ type: WebhookWithSecretResponse })
  @ApiProblems(400, { 403: ['insufficient_scope', 'email_unverified'], 409: ['quota_exceeded'] })
  create(@CurrentPrincipal() principal: Principal, @Body() body: CreateWebhookRequest): Promise<WebhookWithSecretResponse> {
    return this.webhooks.create(principal, body);
  }

  @Get()
  @ApiOperation({ summary: 'List webhook endpoints', operationId: 'listWebhooks' })
  @ApiOkResponse({ type: PaginatedWebhooks })
  @ApiProblems(400)
  list(@CurrentPrincipal() principal: Principal, @Query() query: PageQuery): Promise<Paginated<WebhookResponse>> {
    return this.webhooks.list(principal.accountId, query);
  }

  @Get(':id')
  @ApiOperation({ summary: 'Get a webhook endpoint', operationId: 'getWebhook' })
  @ApiProblems(400, 404)
  get(@CurrentPrincipal() principal: Principal, @UuidParam() id: string): Promise<WebhookResponse> {
    return this.webhooks.get(principal.accountId, id);
  }

  @Patch(':id')
  @RequireRole('admin')
  @ApiOperation({ summary: 'Change a webhook endpoint (URL, events, enabled, description)', operationId: 'updateWebhook' })
  @ApiProblems(400, 403, 404)
  update(@CurrentPrincipal() principal: Principal, @UuidParam() id: string, @Body() body: UpdateWebhookRequest): Promise<WebhookResponse> {
    return this.webhooks.update(principal, id, body);
  }

  @Delete(':id')
  @HttpCode(204)
  @RequireRole('admin')
  @ApiOperation({ summary: 'Delete a webhook endpoint and its deliveries', operationId: 'deleteWebhook' })
  @ApiProblems(400, 403, 404)
  remove(@CurrentPrincipal() principal: Principal, @UuidParam() id: string): Promise<void> {
    return this.webhooks.remove(principal, id);
  }

  @Post(':id/rotate-secret')
  @HttpCode(200)
  @Idempotent()
  @RequireRole('admin')
  @ApiOperation({
    summary: 'Replace the signing secret (the old one keeps signing beside it for 24 hours)',
    operationId: 'rotateWebhookSecret',
  })
  @ApiOkResponse({ type: WebhookWithSecretResponse })
  @ApiProblems(400, 403, 404)
  rotateSecret(@CurrentPrincipal() principal: Principal, @UuidParam() id: string): Promise<WebhookWithSecretResponse> {
    return this.webhooks.rotateSecret(principal, id);
  }

  @Post(':id/test')
  @HttpCode(202)
  @Idempotent()
  @RequireRole('admin')
  @ApiOperation({ summary: 'Queue a webhook.test delivery to the endpoint', operationId: 'testWebhook' })
  @ApiAcceptedResponse({ type: WebhookDeliveryResponse })
  @ApiProblems(400, 403, 404, { 409: ['invalid_state'] })
  test(@CurrentPrincipal() principal: Principal, @UuidParam() id: string): Promise<WebhookDeliveryResponse> {
    return this.deliveries.sendTest(principal, id);
  }

  @Get(':id/deliveries')
  @ApiOperation({ summary: "List an endpoint's deliveries, newest first", operationId: 'listWebhookDeliveries' })
  @ApiOkResponse({ type: PaginatedDeliveries })
  @ApiProblems(400, 404)
  deliveriesOf(
    @CurrentPrincipal() principal: Principal,
    @UuidParam() id: string,
    @Query() query: PageQuery,
  ): Promise<Paginated<WebhookDeliveryResponse>> {
    return this.history.list(principal.accountId, id, query);
  }

  @Get(':id/deliveries/:deliveryId/attempts')
  @ApiOperation({
    summary: "List a delivery's attempts, newest first (status or error, duration, the answer's headers and first 4 KiB)",
    operationId: 'listWebhookDeliveryAttempts',
  })
  @ApiOkResponse({ type: PaginatedAttempts })
  @ApiProblems(400, 404)
  attemptsOf(
    @CurrentPrincipal() principal: Principal,
    @UuidParam() id: string,
    @UuidParam('deliveryId') deliveryId: string,
    @Query() query: PageQuery,
  ): Promise<Paginated<WebhookDeliveryAttemptResponse>> {
    return this.history.attempts(principal.accountId, id, deliveryId, query);
  }

  @Post(':id/deliveries/:deliveryId/redeliver')
  @HttpCode(202)
  @Idempotent()
  @RequireRole('admin')
  @ApiOperation({ summary: 'Queue another attempt of a delivery (same webhook-id)', operationId: 'redeliverWebhookDelivery' })
  @ApiAcceptedResponse({ type: WebhookDeliveryResponse })
  @ApiProblems(400, 403, 404)
  redeliver(
    @CurrentPrincipal() principal: Principal,
    @UuidParam() id: string,
    @UuidParam('deliveryId') deliveryId: string,
  ): Promise<WebhookDeliveryResponse> {
    return this.deliveries.redeliver(principal.accountId, id, deliveryId);
  }
}
