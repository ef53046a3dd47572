import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';

const BLOCK = 16 * 1024;

/** What the simulator backs up for a VPS: `bytes` (256 KiB unless COMPUTE_SIMULATOR_DISK_KIB) derived from its id, in 16 KiB chunks. */
export function simulatedDisk(serviceId: string, bytes = 256 * 1024): Readable {
  const block = Buffer.alloc(BLOCK);
  for (let at = 0; at < block.length; at += 32) createHash('sha256').update(`${serviceId}:${at}`).digest().copy(block, at);
  return Readable.from(
    (function* () {
      for (let at = 0; at < bytes; at += BLOCK) yield at + BLOCK <= bytes ? block : block.subarray(0, bytes - at);
    })(),
  );
}
