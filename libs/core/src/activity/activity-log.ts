import type { EntityManager } from 'typeorm';
import type { Principal } from '../auth/principal';
import type { RequestFacts } from '../http/request-facts';
import type { ActivityAction } from './activity-actions';

export type ActorType = 'account' | 'api_key' | 'staff' | 'system';
export type ActivityStatus = 'succeeded' | 'failed';

/** Who did it: the account (access token), one of its API keys, the provider's staff, or the system. */
export interface Actor {
  type: ActorType;
  id: string | null;
  name: string | null;
  /** The member who acted (with an access token or their API key); null for staff, the system, a sign-in. */
  memberId?: string | null;
  /** The address of the login who acted; null for staff and the system. */
  email?: string | null;
  /** The API key they used; null with an access token. */
  keyId?: string | null;
}

export interface ActivityEntity {
  type: string;
  id: string;
}

export interface ActivityInput {
  accountId: string;
  /** `<entity>.<verb>` in snake_case, declared by its area: `instance.stop`, `api_key.create`, `auth.login_failed`. */
  action: ActivityAction;
  entity: ActivityEntity | null;
  /** Default `succeeded`. */
  status?: ActivityStatus;
  /** The authenticated caller: the actor (the account or the API key) and the request's facts. */
  caller?: Principal;
  /** A public route's request facts (sign-in, password reset), when there is no caller. */
  request?: RequestFacts;
  /** Default: the caller's actor, else the system. */
  actor?: Actor;
  /** Non-secret facts about the change; webhooks deliver them as the event's data. */
  details?: Record<string, unknown>;
}

/** Who a change is recorded as done by: the request's caller, or a named actor (staff); else the system. */
export type RecordedBy = Pick<ActivityInput, 'caller' | 'actor'>;

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
  /**
   * Replaces the details of an entry that stands for a running count (the per-minute summary of
   * refused sign-ins); hooks are not run again, so webhooks get the entry as first recorded.
   */
  abstract amendDetails(manager: EntityManager, accountId: string, entryId: string, details: Record<string, unknown>): Promise<void>;
  /** Registers work done for every recorded entry in its transaction (the webhook fan-out). */
  abstract onRecorded(hook: ActivityHook): void;
}
