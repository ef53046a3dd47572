import { join } from 'node:path';

/**
 * Where the API server that owns an embedded data directory takes operator commands: a Unix socket
 * (0600) in a folder only its owner may enter (0700), so no one else reaches it, not even in the
 * moment between its creation and its chmod.
 */
export function operatorSocketPath(dataDir: string): string {
  return join(operatorSocketFolder(dataDir), 'operator.sock');
}

export function operatorSocketFolder(dataDir: string): string {
  return join(dataDir, 'operator');
}

/** One JSON line each way: the CLI sends `{ argv }`; the server answers with output, then the exit code. */
export type OperatorFrame = { out: string } | { err: string } | { exit: number };
