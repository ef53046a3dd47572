import { CreateAccounts1764000000100 } from './1764000000100-create-accounts';

export const accountsMigrations = [CreateAccounts1764000000100];
