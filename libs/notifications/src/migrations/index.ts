import { CreateNotifications1764000000700 } from './1764000000700-create-notifications';
import { NotificationCounts1764000002630 } from './1764000002630-notification-counts';

export const notificationsMigrations = [CreateNotifications1764000000700, NotificationCounts1764000002630];
