import { TicketMessageMembers1764000004840 } from './1764000004840-ticket-message-members';
import { CreateSupport1764000000600 } from './1764000000600-create-support';
import { SupportForeignKeyIndexes1764000002610 } from './1764000002610-foreign-key-indexes';
import { TicketCounts1764000002640 } from './1764000002640-ticket-counts';

export const supportMigrations = [
  CreateSupport1764000000600,
  SupportForeignKeyIndexes1764000002610,
  TicketCounts1764000002640,
  TicketMessageMembers1764000004840,
];
