import { CreateAccounts1764000000100 } from './1764000000100-create-accounts';
import { AccountSecurity1764000001000 } from './1764000001000-account-security';

export const authMigrations = [CreateAccounts1764000000100, AccountSecurity1764000001000];
