import { CreateWebhooks1764000001800 } from './1764000001800-create-webhooks';
import { CreateWebhookDeliveryAttempts1764000002400 } from './1764000002400-create-webhook-delivery-attempts';
import { WebhookDeliveryCounts1764000002650 } from './1764000002650-webhook-delivery-counts';
import { WebhookEndpointLeaseHolder1764000002700 } from './1764000002700-webhook-endpoint-lease-holder';

export const webhooksMigrations = [
  CreateWebhooks1764000001800,
  CreateWebhookDeliveryAttempts1764000002400,
  WebhookDeliveryCounts1764000002650,
  WebhookEndpointLeaseHolder1764000002700,
];
