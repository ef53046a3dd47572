import { CreateNotifications1764000000700 } from './1764000000700-create-notifications';

export const notificationsMigrations = [CreateNotifications1764000000700];
