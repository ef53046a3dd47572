import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';

/** What the simulator backs up for a VPS: 256 KiB derived from its id, in 16 KiB chunks. */
export function simulatedDisk(serviceId: string): Readable {
  const block = Buffer.alloc(16 * 1024);
  for (let at = 0; at < block.length; at += 32) createHash('sha256').update(`${serviceId}:${at}`).digest().copy(block, at);
  return Readable.from(
    (function* () {
      for (let i = 0; i < 16; i++) yield block;
    })(),
  );
}
