import type { Response } from 'express';

/** How long a client waits before reconnecting (the SSE `retry:` field). */
export const RECONNECT_HINT_MS = 2_000;

/**
 * One Server-Sent Events response: headers that keep proxies and caches from holding it, a
 * reconnect hint, heartbeat comments so idle connections survive load balancers, and writes
 * that are no-ops once the client is gone.
 */
export class SseStream {
  private readonly heartbeat: NodeJS.Timeout;
  private closed = false;

  constructor(
    private readonly res: Response,
    heartbeatMs: number,
  ) {
    res.status(200);
    res.setHeader('Content-Type', 'text/event-stream; charset=utf-8');
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('Connection', 'keep-alive');
    res.setHeader('X-Accel-Buffering', 'no');
    res.on('error', () => undefined); // a reset connection is a normal end of a stream
    res.on('close', () => this.dispose());
    res.flushHeaders();
    res.write(`retry: ${RECONNECT_HINT_MS}\n\n`);
    this.heartbeat = setInterval(() => this.write(': heartbeat\n\n'), heartbeatMs);
    // The client may have gone while the request was authenticated.
    if (res.destroyed || res.socket?.destroyed) this.dispose();
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
    this.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  }

  /** Ends the stream from the server side with a last event (by default: come back, elsewhere). */
  end(event = 'shutdown', data: unknown = {}): void {
    this.write(`retry: ${RECONNECT_HINT_MS}\nevent: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
    this.dispose();
    if (!this.res.writableEnded) this.res.end();
  }

  private write(chunk: string): void {
    if (!this.closed && !this.res.writableEnded && !this.res.destroyed) this.res.write(chunk);
  }

  private dispose(): void {
    this.closed = true;
    clearInterval(this.heartbeat);
  }
}
