import type { EntityManager } from 'typeorm';
import type { InstanceRef, StepReporter, TaskStatus } from '../compute/compute-provider';
import type { ActionParams, PendingAction } from './instance-actions.repository';
import type { ActionType } from '../vps.types';

/** What an action is asked with, under its type's name (`{ rebuild }`, `{ snapshot }`, `{ restore }`); the power actions take nothing. */
export type ActionInput = Readonly<Record<string, unknown>>;

/** How the hypervisor's task ended. */
export type Outcome = Exclude<TaskStatus, { state: 'running' }>;

export type AfterCommit = () => Promise<void>;

/** An action asked for, inside the transaction that holds the service row lock. */
export interface ActionRequest {
  accountId: string;
  service: { id: string; name: string };
  input?: ActionInput;
}

/** What a requested action is recorded with, what its activity entry adds, and what else it writes. */
export interface ActionRecord {
  params: ActionParams;
  details: Record<string, unknown>;
  /** Once the action is recorded, in its transaction. */
  alsoWrite?(): Promise<void>;
}

/** What ActionStart and the runner ask of one type of action. */
export interface InstanceActionHandler {
  /** Refused while the VPS is in rescue mode. */
  readonly refusedInRescue?: boolean;
  /** The request's own faults (an unknown image, another account's key), before the machine's state is looked at. */
  check?(m: EntityManager, request: ActionRequest): Promise<ActionRecord | null>;
  /** Once the machine may take the action: what it reserves (a refused action reserves nothing). */
  reserve?(m: EntityManager, request: ActionRequest): Promise<ActionRecord | null>;
  /** Sends the action to the hypervisor, telling `steps` where it is; returns the task handle the runner polls. */
  begin(action: PendingAction, ref: InstanceRef, steps: StepReporter): Promise<string>;
  /** In the transaction that records how the action ended: what the type keeps of its own; may leave work for after COMMIT. */
  finish?(m: EntityManager, action: PendingAction, outcome: Outcome): Promise<AfterCommit | void>;
}

/** A rule another room holds over actions (rescue refuses some types): the reason to refuse, or null. */
export type ActionRefusal = (
  m: EntityManager,
  serviceId: string,
  type: ActionType,
  handler: InstanceActionHandler,
) => Promise<string | null>;
