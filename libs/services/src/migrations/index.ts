export const servicesMigrations: Function[] = [];
