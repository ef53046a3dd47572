export * from './accounts.module';
export * from './accounts.service';
export type { AccountView } from './account.view';
export type { LoginAccountRow, MemberRow } from './members/members.repository';
export * from './migrations';
export * from './cli/account-by-email';
