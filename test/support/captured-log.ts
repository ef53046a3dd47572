import { Writable } from 'node:stream';
import pino from 'pino';
import type { AppLogging } from '../../apps/api/src/http/configure-app';

/** An app's log kept in memory, one JSON line per entry, for a test that reads what was logged. */
export function capturedLog(level = 'trace'): { logging: AppLogging; lines: string[] } {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  return { lines, logging: { logger: pino({ level }, sink) } };
}
