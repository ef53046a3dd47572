import { AccountSecurity1764000001000 } from './1764000001000-account-security';

export const authMigrations = [AccountSecurity1764000001000];
