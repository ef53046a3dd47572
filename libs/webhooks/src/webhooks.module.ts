import { Module } from '@nestjs/common';
import { AccountsModule } from '@app/accounts';
import { AttemptsRepository } from './delivery/attempts.repository';
import { DeliveriesRetentionJob } from './delivery/deliveries-retention.job';
import { DeliveriesRepository } from './delivery/deliveries.repository';
import { DeliveriesService } from './delivery/deliveries.service';
import { DeliveryHistory } from './delivery/delivery-history';
import { DeliveryAttemptJob } from './delivery/delivery-attempt.job';
import { DeliveryFanOut } from './delivery/delivery-fan-out';
import { DeliveryOutcomes } from './delivery/delivery-outcomes';
import { EndpointFailures } from './delivery/endpoint-failures';
import { DeliveryOutbox } from './delivery/delivery-outbox';
import { DeliverySigner } from './delivery/delivery-signer';
import { EndpointDrains } from './delivery/endpoint-drains';
import { EndpointLeasesRepository } from './delivery/endpoint-leases.repository';
import { WebhookSender } from './delivery/webhook-sender';
import { WebhooksController } from './webhooks.controller';
import { WebhooksRepository } from './webhooks.repository';
import { WebhooksService } from './webhooks.service';

/** Signed webhooks: endpoints, and deliveries fanned out from the activity log onto the job queue. */
@Module({
  imports: [AccountsModule],
  controllers: [WebhooksController],
  providers: [
    WebhooksRepository,
    DeliveriesRepository,
    AttemptsRepository,
    EndpointLeasesRepository,
    WebhooksService,
    DeliveriesService,
    DeliveryHistory,
    DeliveryOutbox,
    DeliveryFanOut,
    DeliveryAttemptJob,
    EndpointDrains,
    DeliverySigner,
    DeliveryOutcomes,
    EndpointFailures,
    WebhookSender,
    DeliveriesRetentionJob,
  ],
})
export class WebhooksModule {}
