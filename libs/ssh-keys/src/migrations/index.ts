export const sshKeysMigrations: Function[] = [];
