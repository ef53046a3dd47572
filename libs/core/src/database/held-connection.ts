import { AsyncLocalStorage } from 'node:async_hooks';

/** Where an open transaction on the embedded database began, while its work runs. */
export interface HeldConnection {
  readonly openedAt: string;
  holding: boolean;
}

export const transactionScopes = new AsyncLocalStorage<HeldConnection>();

/** The transaction whose work the current code runs in, if it holds the embedded database's connection now. */
export function heldConnection(): HeldConnection | undefined {
  const scope = transactionScopes.getStore();
  return scope?.holding ? scope : undefined;
}

/**
 * A statement awaited outside the transaction whose work is running, on the embedded database:
 * PGlite has one connection and the transaction holds it, so the statement would wait forever and
 * every request behind it too. It fails at once instead, naming both places.
 */
export class EmbeddedDatabaseDeadlock extends Error {
  constructor(held: HeldConnection, statementAt: string) {
    super(
      "A statement outside a transaction was started while that transaction holds the embedded database's only connection " +
        "(it would wait forever). Run it with the transaction's manager, or after the transaction.\n" +
        `Transaction opened at:\n${held.openedAt}\nStatement started at:\n${statementAt}`,
    );
    this.name = 'EmbeddedDatabaseDeadlock';
  }
}

const OWN_FRAMES = /[/\\](core[/\\]src[/\\]database|node_modules)[/\\]|\(node:|^\s+at (new Promise|async Promise)/;

/** The stack of the code that called into the database layer, without the layer's own frames. */
export function stackHere(): string {
  const frames = (new Error().stack ?? '').split('\n').slice(1);
  return frames.filter((frame) => !OWN_FRAMES.test(frame)).join('\n') || frames.join('\n');
}
