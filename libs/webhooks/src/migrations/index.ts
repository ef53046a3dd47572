import { CreateWebhooks1764000001800 } from './1764000001800-create-webhooks';

export const webhooksMigrations = [CreateWebhooks1764000001800];
