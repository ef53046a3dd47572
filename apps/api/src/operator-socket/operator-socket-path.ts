import { join } from 'node:path';

/** Where the API server that owns an embedded data directory takes operator commands (a Unix socket, 0600). */
export function operatorSocketPath(dataDir: string): string {
  return join(dataDir, 'operator.sock');
}

/** One JSON line each way: the CLI sends `{ argv }`; the server answers with output, then the exit code. */
export type OperatorFrame = { out: string } | { err: string } | { exit: number };
