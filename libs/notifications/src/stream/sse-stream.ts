import type { Response } from 'express';

/** How long a client waits before reconnecting (the SSE `retry:` field). */
export const RECONNECT_HINT_MS = 2_000;
const HEARTBEAT = ': heartbeat\n\n';

/** One event as written on the wire: format it once, write it to every stream that gets it. */
export function sseEvent(event: string, data: unknown): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

/**
 * One Server-Sent Events response: headers that keep proxies and caches from holding it, a
 * reconnect hint, and writes that are no-ops once the client is gone. Heartbeat comments (so idle
 * connections survive load balancers) come from the hub's one timer for all streams.
 */
export class SseStream {
  private closed = false;

  constructor(private readonly res: Response) {
    res.status(200);
    res.setHeader('Content-Type', 'text/event-stream; charset=utf-8');
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('Connection', 'keep-alive');
    res.setHeader('X-Accel-Buffering', 'no');
    res.on('error', () => undefined); // a reset connection is a normal end of a stream
    res.on('close', () => (this.closed = true));
    res.flushHeaders();
    res.write(`retry: ${RECONNECT_HINT_MS}\n\n`);
    // The client may have gone while the request was authenticated.
    if (res.destroyed || res.socket?.destroyed) this.closed = true;
  }

  get open(): boolean {
    return !this.closed;
  }

  /** Runs once the stream is over, whoever ended it. */
  onClose(listener: () => void): void {
    if (this.closed) listener();
    else this.res.once('close', listener);
  }

  send(event: string, data: unknown): void {
    this.write(sseEvent(event, data));
  }

  /** Events formatted by sseEvent. */
  push(events: string): void {
    this.write(events);
  }

  heartbeat(): void {
    this.write(HEARTBEAT);
  }

  /** Ends the stream from the server side with a last event (by default: come back, elsewhere). */
  end(event = 'shutdown', data: unknown = {}): void {
    this.write(`retry: ${RECONNECT_HINT_MS}\n${sseEvent(event, data)}`);
    this.closed = true;
    if (!this.res.writableEnded) this.res.end();
  }

  private write(chunk: string): void {
    if (!this.closed && !this.res.writableEnded && !this.res.destroyed) this.res.write(chunk);
  }
}
