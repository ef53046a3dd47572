/**
 * Facts that cross module boundaries. Emitters depend on these types only, never on the module
 * that reacts (for example notifications); a listener names an event by `DomainEventNamed<'name'>`
 * and needs no import of the emitting area either.
 */
export interface DomainEventBase<N extends string, P> {
  name: N;
  accountId: string;
  occurredAt: Date;
  payload: P;
}

/** Sessions ended or API keys revoked: open event streams of the account check their credential again. */
export type CredentialsRevokedEvent = DomainEventBase<'credentials.revoked', Record<string, never>>;

/**
 * What each area declares in its `libs/<area>/src/<area>.events.ts`: its activity actions and its
 * domain events, added here by declaration merging
 * (`declare module '@app/core' { interface AreaEvents { <area>: { actions: ...; events: ... } } }`),
 * so `ActivityAction` and `DomainEvent` are the unions of what the areas declare. Core holds only
 * the event several areas emit and hear (`credentials.revoked`).
 */
export interface AreaEvents {
  core: {
    actions: never;
    events: CredentialsRevokedEvent;
  };
}

export type DomainEvent = AreaEvents[keyof AreaEvents]['events'];
/** The event of this name, for a listener that does not import the emitting area. */
export type DomainEventNamed<N extends DomainEvent['name']> = Extract<DomainEvent, { name: N }>;

export function domainEvent<E extends DomainEvent>(name: E['name'], accountId: string, payload: E['payload']): E {
  return { name, accountId, payload, occurredAt: new Date() } as E;
}

/** Held-open things (streams, consoles, MCP sessions) of the account, or of the login, check their credential again. */
export function credentialsRevoked(accountId: string): CredentialsRevokedEvent {
  return domainEvent<CredentialsRevokedEvent>('credentials.revoked', accountId, {});
}
