import { ApiKeysModule } from '@app/api-keys';
import { AuthModule } from '@app/auth';
import { EventsModule } from '@app/events';
import { McpModule } from '@app/mcp';
import { NotificationsModule } from '@app/notifications';
import { ProductsModule } from '@app/products';
import { ServicesModule } from '@app/services';
import { SshKeysModule } from '@app/ssh-keys';
import { SupportModule } from '@app/support';
import { WebhooksModule } from '@app/webhooks';

export const AREA_MODULES = [
  AuthModule,
  ApiKeysModule,
  ProductsModule,
  ServicesModule,
  SshKeysModule,
  SupportModule,
  NotificationsModule,
  EventsModule,
  WebhooksModule,
  McpModule,
];
