import { MODULE_METADATA } from '@nestjs/common/constants';
import type { Provider, Type } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import type { InstanceActionHandler } from './action-handler';
import { InstanceActionHandlers } from './instance-action-handlers';
import { VpsModule } from '../vps.module';
import { ACTION_TYPES } from '../vps.types';

/** The providers of a module and of every module it imports. */
function providersOf(module: Type, seen = new Set<Type>()): Provider[] {
  if (seen.has(module)) return [];
  seen.add(module);
  const imports = (Reflect.getMetadata(MODULE_METADATA.IMPORTS, module) ?? []) as Type[];
  const own = (Reflect.getMetadata(MODULE_METADATA.PROVIDERS, module) ?? []) as Provider[];
  return [...own, ...imports.flatMap((imported) => providersOf(imported, seen))];
}

const handler: InstanceActionHandler = { begin: () => Promise.resolve('task') };

describe('InstanceActionHandlers', () => {
  it('names a type without a handler, and a type registered twice', () => {
    const handlers = new InstanceActionHandlers();
    handlers.register('start', handler);
    expect(handlers.handlerOf('start')).toBe(handler);
    expect(() => handlers.handlerOf('restore')).toThrow('Instance action "restore" has no handler registered');
    expect(() => handlers.register('start', handler)).toThrow('Instance action "start" has a handler already');
  });

  it('stops the start of an application that lacks a handler for a type', () => {
    const handlers = new InstanceActionHandlers();
    for (const type of ACTION_TYPES.filter((t) => t !== 'rescue' && t !== 'unrescue')) handlers.register(type, handler);
    expect(() => handlers.onApplicationBootstrap()).toThrow('Instance actions without a handler: rescue, unrescue');
  });

  it("has the VPS area's handlers, in whichever of its modules, register every action type the API and the database allow (ACTION_TYPES)", async () => {
    const providers = providersOf(VpsModule);
    // The handlers are the providers that register themselves; their other dependencies are stubs.
    const registering = providers.filter(
      (p): p is Type =>
        typeof p === 'function' && ((Reflect.getMetadata('design:paramtypes', p) ?? []) as unknown[]).includes(InstanceActionHandlers),
    );
    const module = await Test.createTestingModule({ providers: [InstanceActionHandlers, ...registering] })
      .useMocker(() => ({}))
      .compile();
    await module.init();
    expect(module.get(InstanceActionHandlers).registeredTypes().sort()).toEqual([...ACTION_TYPES].sort());
    await module.close();
  });
});
