import { Injectable } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { AddressInfo } from 'node:net';
import { AppConfig } from '@app/core';

/** This process's own HTTP address, for the calls the MCP endpoint makes for its clients. */
@Injectable()
export class Loopback {
  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly config: AppConfig,
  ) {}

  /** `http://127.0.0.1:<port>` of the listening server (whatever address it listens on: all, or loopback itself). */
  url(): string {
    const address = this.adapterHost.httpAdapter?.getHttpServer()?.address() as AddressInfo | string | null | undefined;
    const port = address && typeof address === 'object' ? address.port : this.config.port;
    const host = address && typeof address === 'object' && address.family === 'IPv6' && address.address === '::1' ? '[::1]' : '127.0.0.1';
    return `http://${host}:${port}`;
  }
}
