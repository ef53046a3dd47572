import { All, Controller, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { CurrentPrincipal, Principal, RequireScope } from '@app/core';
import { McpSessions } from './mcp-sessions';

/**
 * The MCP endpoint (Streamable HTTP: POST messages, GET the server's stream, DELETE the session),
 * behind the global bearer guard. A read-only key may use it: what it may call is the tools' affair
 * (a read-only key lists only the read tools). Not an API operation, so not in the OpenAPI document.
 */
@ApiExcludeController()
@RequireScope('read')
@Controller('mcp')
export class McpController {
  constructor(private readonly sessions: McpSessions) {}

  @All()
  handle(@CurrentPrincipal() principal: Principal, @Req() req: Request, @Res() res: Response): Promise<void> {
    return this.sessions.handle(principal, req, res);
  }
}
