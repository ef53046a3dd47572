import { CreateAccounts1764000000100 } from './1764000000100-create-accounts';
import { AccountMembers1764000004800 } from './1764000004800-account-members';

export const accountsMigrations = [CreateAccounts1764000000100, AccountMembers1764000004800];
