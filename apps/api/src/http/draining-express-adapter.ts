import type { Server } from 'node:http';
import { ExpressAdapter } from '@nestjs/platform-express';

/**
 * Stops accepting connections as soon as shutdown begins, before the lifecycle hooks run, so a
 * proxy sends new requests to another replica; closing still waits for in-flight requests.
 */
export class DrainingExpressAdapter extends ExpressAdapter {
  private closed?: Promise<void>;

  override beforeClose(): void {
    super.beforeClose();
    void this.stopAccepting();
  }

  override close(): Promise<void> {
    super.beforeClose();
    return this.stopAccepting();
  }

  private stopAccepting(): Promise<void> {
    const server = this.getHttpServer() as Server | undefined;
    if (!this.closed) {
      this.closed = server?.listening ? new Promise<void>((resolve) => server.close(() => resolve())) : Promise.resolve();
    }
    server?.closeIdleConnections();
    return this.closed;
  }
}
