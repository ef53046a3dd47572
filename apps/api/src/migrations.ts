import { accountsMigrations } from '@app/accounts';
import { apiKeysMigrations } from '@app/api-keys';
import { authMigrations } from '@app/auth';
import { coreMigrations } from '@app/core';
import { eventsMigrations } from '@app/events';
import { notificationsMigrations } from '@app/notifications';
import { productsMigrations } from '@app/products';
import { servicesMigrations } from '@app/services';
import { sshKeysMigrations } from '@app/ssh-keys';
import { supportMigrations } from '@app/support';
import { webhooksMigrations } from '@app/webhooks';

/** Every area's migrations; TypeORM orders them by the timestamp in their names. */
export const allMigrations = [
  ...accountsMigrations,
  ...authMigrations,
  ...apiKeysMigrations,
  ...productsMigrations,
  ...servicesMigrations,
  ...sshKeysMigrations,
  ...supportMigrations,
  ...notificationsMigrations,
  ...eventsMigrations,
  ...webhooksMigrations,
  ...coreMigrations,
];
