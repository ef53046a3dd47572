import { Injectable } from '@nestjs/common';
import { AppConfig, Problem, originOf } from '@app/core';

/**
 * The browser origins /mcp answers (the Streamable HTTP transport's rule against DNS rebinding): the
 * API's own (PUBLIC_URL), the dashboard's (DASHBOARD_URL) and those CORS_ORIGINS lets call the API.
 * A request without Origin is not a browser's (assistants, hostctl, the SDK) and is answered too.
 * Checked here for every request, before a session is made (the SDK transport's `allowedOrigins`
 * would check only after this process had built the session's server for an initialize).
 */
@Injectable()
export class McpOrigins {
  private readonly allowed: ReadonlySet<string>;

  constructor(config: AppConfig) {
    const urls = [config.publicUrl, config.dashboardUrl, ...config.corsOrigins];
    this.allowed = new Set(urls.map((url) => (url ? originOf(url) : null)).filter((origin) => origin !== null));
  }

  check(origin: string | string[] | undefined): void {
    if (origin === undefined) return;
    const named = typeof origin === 'string' ? originOf(origin) : null;
    if (named === null || !this.allowed.has(named))
      throw new Problem(
        403,
        'forbidden',
        'The MCP endpoint answers no web page of this Origin: only the API and its dashboard (PUBLIC_URL, DASHBOARD_URL, CORS_ORIGINS), or clients that send no Origin.',
      );
  }
}
