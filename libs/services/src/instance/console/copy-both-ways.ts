import type { Socket } from 'node:net';
import { WebSocket } from 'ws';

/** Upstream bytes queued for the client beyond which reading from upstream pauses. */
const HIGH_WATER = 4 << 20;
const LOW_WATER = 1 << 20;

/**
 * Copies upstream TCP bytes to the client as binary WebSocket messages (what arrived in one
 * event-loop turn per message) and the client's binary messages to upstream, pausing whichever side reads
 * faster than the other can take. Text messages are refused: RFB is binary.
 */
export function copyBothWays(ws: WebSocket, upstream: Socket, count: (toClient: number, fromClient: number) => void): void {
  let queued = 0;
  let batch: Buffer[] = [];
  // What one turn of the event loop read goes out as one message: fewer, larger frames.
  const flush = () => {
    const data = batch.length === 1 ? batch[0] : Buffer.concat(batch);
    batch = [];
    if (ws.readyState !== WebSocket.OPEN) return;
    queued += data.length;
    ws.send(data, { binary: true, compress: false }, () => {
      queued -= data.length;
      if (queued < LOW_WATER && upstream.isPaused()) upstream.resume();
    });
    if (queued > HIGH_WATER) upstream.pause();
  };
  upstream.on('data', (chunk: Buffer) => {
    count(chunk.length, 0);
    if (batch.push(chunk) === 1) setImmediate(flush);
  });
  ws.on('message', (data: Buffer, isBinary: boolean) => {
    if (!isBinary) {
      ws.close(1003, 'The console carries binary RFB frames only.');
      return;
    }
    count(0, data.length);
    if (!upstream.write(data)) {
      ws.pause();
      upstream.once('drain', () => ws.resume());
    }
  });
  upstream.on('error', () => ws.terminate());
  ws.on('error', () => upstream.destroy());
}
