import type { EntityManager } from 'typeorm';

export type ActorType = 'account' | 'api_key' | 'staff' | 'system';
export type ActivityStatus = 'succeeded' | 'failed';

/** Who did it: the account (access token), one of its API keys, the provider's staff, or the system. */
export interface Actor {
  type: ActorType;
  id: string | null;
  name: string | null;
}

export interface ActivityEntity {
  type: string;
  id: string;
}

export interface ActivityInput {
  accountId: string;
  /** `<entity>.<verb>` in snake_case: `instance.stop`, `api_key.create`, `auth.login_failed`. */
  action: string;
  entity: ActivityEntity | null;
  /** Default `succeeded`. */
  status?: ActivityStatus;
  /** Default: the caller of the current request, or the system outside a request. */
  actor?: Actor;
  /** Non-secret facts about the change; webhooks deliver them as the event's data. */
  details?: Record<string, unknown>;
}

export interface ActivityEntry {
  id: string;
  accountId: string;
  action: string;
  entity: ActivityEntity | null;
  actor: Actor;
  ip: string | null;
  userAgent: string | null;
  requestId: string | null;
  status: ActivityStatus;
  details: Record<string, unknown>;
  createdAt: Date;
}

/** Runs inside the transaction that recorded the entry, so what it writes commits or rolls back with it. */
export type ActivityHook = (manager: EntityManager, entry: ActivityEntry) => Promise<void>;

/**
 * The account's activity log. Areas record each state-changing operation with the manager of the
 * transaction that makes the change; a failed operation is recorded with a manager outside the
 * transaction that rolled back.
 */
export abstract class ActivityLog {
  abstract record(manager: EntityManager, input: ActivityInput): Promise<ActivityEntry>;
  /** Registers work done for every recorded entry in its transaction (the webhook fan-out). */
  abstract onRecorded(hook: ActivityHook): void;
}
