import { Injectable, OnApplicationBootstrap } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { ActionInput } from './action-start';
import type { InstanceRef } from './compute/compute-provider';
import type { Outcome } from './instance-action-outcome';
import type { ActionParams, PendingAction } from './instance-actions.repository';
import { ACTION_TYPES, ActionType } from './vps.types';

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
  /** Sends the action to the hypervisor; returns the task handle the runner polls. */
  begin(action: PendingAction, ref: InstanceRef): Promise<string>;
  /** In the transaction that records how the action ended: what the type keeps of its own; may leave work for after COMMIT. */
  finish?(m: EntityManager, action: PendingAction, outcome: Outcome): Promise<AfterCommit | void>;
}

/**
 * The action types and who sends each: every handler registers itself here in its onModuleInit,
 * from the folder that owns its type, so ActionStart, the runner and the outcome name none. A type without a
 * handler stops the application at start, not the first action of that type.
 */
@Injectable()
export class InstanceActionHandlers implements OnApplicationBootstrap {
  private readonly handlers = new Map<ActionType, InstanceActionHandler>();

  register(type: ActionType, handler: InstanceActionHandler): void {
    if (this.handlers.has(type)) throw new Error(`Instance action "${type}" has a handler already`);
    this.handlers.set(type, handler);
  }

  handlerOf(type: ActionType): InstanceActionHandler {
    const handler = this.handlers.get(type);
    if (!handler) throw new Error(`Instance action "${type}" has no handler registered`);
    return handler;
  }

  registeredTypes(): ActionType[] {
    return [...this.handlers.keys()];
  }

  onApplicationBootstrap(): void {
    const missing = ACTION_TYPES.filter((type) => !this.handlers.has(type));
    if (missing.length) throw new Error(`Instance actions without a handler: ${missing.join(', ')}`);
  }
}
