export const productsMigrations: Function[] = [];
