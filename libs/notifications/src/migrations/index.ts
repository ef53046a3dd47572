export const notificationsMigrations: Function[] = [];
