import { connect } from 'node:net';
import { createInterface } from 'node:readline';
import { DataDirLockedError } from '@app/core';
import type { CliOutput } from '../cli-runner';
import { OperatorFrame, operatorSocketPath } from './operator-socket-path';

/**
 * Sends a command line to the API server `owner` that holds the embedded data directory and
 * relays its output; returns its exit code. A server that takes no commands (still starting, or
 * without the socket) is refused as the data directory's lock always was (75).
 */
export async function runInServer(dataDir: string, owner: number, argv: string[], output: CliOutput): Promise<number> {
  const socket = connect(operatorSocketPath(dataDir));
  try {
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', resolve);
      socket.once('error', reject);
    });
  } catch {
    socket.destroy();
    throw new DataDirLockedError(dataDir, owner);
  }
  socket.on('error', () => undefined);
  socket.write(JSON.stringify({ argv }) + '\n');
  for await (const line of createInterface({ input: socket, crlfDelay: Infinity })) {
    const frame = JSON.parse(line) as OperatorFrame;
    if ('out' in frame) output.out(frame.out);
    else if ('err' in frame) output.err(frame.err);
    else {
      socket.destroy();
      return frame.exit;
    }
  }
  output.err(`The API server (process ${owner}) closed the connection before the command ended; its log may say why.\n`);
  return 75;
}
