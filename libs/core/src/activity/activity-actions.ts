import type { AreaEvents } from '../events/domain-event';

/**
 * The actions the activity log records, which are also the event types webhooks subscribe to.
 * Names are `<entity>.<verb>` in snake_case; a name, once published, is never renamed. Each area
 * declares its own in `libs/<area>/src/<area>.events.ts`: the list with `declareActivityActions`,
 * the type in `AreaEvents` (declaration merging), so `ActivityAction` is the union of what the
 * areas declare and core names none of them.
 */
export type ActivityAction = AreaEvents[keyof AreaEvents]['actions'];

const declared: { order: number; actions: readonly string[] }[] = [];
const lists: { head: readonly string[]; list: string[] }[] = [];

/**
 * `head` followed by every declared action, kept up to date as areas declare theirs: a DTO's enum
 * or validator holds it while the areas' files are still loading, and sees them all by the time
 * it is used.
 */
export function activityActionList(head: readonly string[] = []): readonly string[] {
  const list = [...head, ...allDeclared()];
  lists.push({ head, list });
  return list;
}

/** Every declared action, ordered by the areas' `order` (then as declared). */
export const ACTIVITY_ACTIONS = activityActionList() as readonly ActivityAction[];

/** An area's actions; `order` places them in the list (the OpenAPI enum): auth 10, API keys 20, services 30, ... */
export function declareActivityActions<const A extends readonly string[]>(order: number, actions: A): A {
  declared.push({ order, actions });
  declared.sort((a, b) => a.order - b.order);
  const all = allDeclared();
  for (const { head, list } of lists) list.splice(0, list.length, ...head, ...all);
  return actions;
}

function allDeclared(): string[] {
  return [...new Set(declared.flatMap((d) => d.actions))];
}
