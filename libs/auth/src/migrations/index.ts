import { SessionCurrentAccount1764000004810 } from './1764000004810-session-current-account';
import { AccountSecurity1764000001000 } from './1764000001000-account-security';
import { MfaChallengesAccountIndex1764000002620 } from './1764000002620-mfa-challenges-account-index';
import { SessionChangeNotices1764000002910 } from './1764000002910-session-change-notices';

export const authMigrations = [
  AccountSecurity1764000001000,
  MfaChallengesAccountIndex1764000002620,
  SessionChangeNotices1764000002910,
  SessionCurrentAccount1764000004810,
];
