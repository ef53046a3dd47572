import { accountsMigrations } from '@app/accounts';
import { apiKeysMigrations } from '@app/api-keys';
import { authMigrations } from '@app/auth';
import { coreMigrations } from '@app/core';
import { dnsMigrations } from '@app/dns';
import { eventsMigrations } from '@app/events';
import { metricsMigrations } from '@app/metrics';
import { notificationsMigrations } from '@app/notifications';
import { objectStorageMigrations } from '@app/object-storage';
import { productsMigrations } from '@app/products';
import { servicesMigrations } from '@app/services';
import { sshKeysMigrations } from '@app/ssh-keys';
import { supportMigrations } from '@app/support';
import { vpsMigrations } from '@app/vps';
import { webhooksMigrations } from '@app/webhooks';

/** Every area's migrations; TypeORM orders them by the timestamp in their names. */
export const allMigrations = [
  ...accountsMigrations,
  ...authMigrations,
  ...apiKeysMigrations,
  ...productsMigrations,
  ...servicesMigrations,
  ...vpsMigrations,
  ...dnsMigrations,
  ...metricsMigrations,
  ...objectStorageMigrations,
  ...sshKeysMigrations,
  ...supportMigrations,
  ...notificationsMigrations,
  ...eventsMigrations,
  ...webhooksMigrations,
  ...coreMigrations,
];
