import type { Socket } from 'node:net';
import type { WebSocket } from 'ws';
import type { UpstreamReads } from './upstream-reads';

/**
 * Copies upstream TCP bytes to the client as binary WebSocket messages (see UpstreamReads) and
 * the client's binary messages to upstream, pausing whichever side reads faster than the other
 * can take. Text messages are refused: RFB is binary.
 */
export function copyBothWays(
  ws: WebSocket,
  upstream: Socket,
  reads: UpstreamReads,
  count: (toClient: number, fromClient: number) => void,
): void {
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
  reads.pipeTo(ws, upstream, (toClient) => count(toClient, 0));
}
