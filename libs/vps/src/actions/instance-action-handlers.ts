import { Injectable, OnApplicationBootstrap } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { ActionRefusal, InstanceActionHandler } from './action-handler';
import { ACTION_TYPES, ActionType } from '../vps.types';

/**
 * The action types and who sends each: every handler registers itself here in its onModuleInit,
 * from the folder that owns its type, so ActionStart, the runner and the outcome name none. A type without a
 * handler stops the application at start, not the first action of that type.
 */
@Injectable()
export class InstanceActionHandlers implements OnApplicationBootstrap {
  private readonly handlers = new Map<ActionType, InstanceActionHandler>();
  private readonly refusals: ActionRefusal[] = [];

  register(type: ActionType, handler: InstanceActionHandler): void {
    if (this.handlers.has(type)) throw new Error(`Instance action "${type}" has a handler already`);
    this.handlers.set(type, handler);
  }

  /** A rule of another room's that may refuse an action before it is recorded. */
  refuseWhen(refusal: ActionRefusal): void {
    this.refusals.push(refusal);
  }

  /** The first reason a registered rule gives to refuse this action, or null. */
  async refusal(m: EntityManager, serviceId: string, type: ActionType, handler: InstanceActionHandler): Promise<string | null> {
    for (const refusal of this.refusals) {
      const reason = await refusal(m, serviceId, type, handler);
      if (reason) return reason;
    }
    return null;
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
