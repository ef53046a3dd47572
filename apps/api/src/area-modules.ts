import { ApiKeysModule } from '@app/api-keys';
import { AuthModule } from '@app/auth';
import { DnsModule } from '@app/dns';
import { EventsModule } from '@app/events';
import { McpModule } from '@app/mcp';
import { MembersModule } from '@app/members';
import { MetricsModule } from '@app/metrics';
import { NotificationsModule } from '@app/notifications';
import { ObjectStorageModule } from '@app/object-storage';
import { ProductsModule } from '@app/products';
import { ServicesModule } from '@app/services';
import { SshKeysModule } from '@app/ssh-keys';
import { SupportModule } from '@app/support';
import { ImagesModule, VpsModule } from '@app/vps';
import { WebhooksModule } from '@app/webhooks';

export const AREA_MODULES = [
  AuthModule,
  ApiKeysModule,
  MembersModule,
  ProductsModule,
  ServicesModule,
  VpsModule,
  ObjectStorageModule,
  // After ObjectStorageModule: the OpenAPI document lists routes in module order (images.module.ts).
  ImagesModule,
  SshKeysModule,
  SupportModule,
  NotificationsModule,
  EventsModule,
  WebhooksModule,
  DnsModule,
  McpModule,
  // Last: its route joins the end of the OpenAPI document.
  MetricsModule,
];
