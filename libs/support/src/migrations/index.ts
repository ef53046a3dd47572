export const supportMigrations: Function[] = [];
