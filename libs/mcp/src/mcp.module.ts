import { Module } from '@nestjs/common';
import { ClientRelay } from './client-relay';
import { Loopback } from './loopback';
import { McpController } from './mcp.controller';
import { McpNoticesRepository } from './mcp-notices.repository';
import { McpOrigins } from './mcp-origins';
import { McpRechecks } from './mcp-rechecks';
import { McpSessions } from './mcp-sessions';
import { OpenApiDocumentSource } from './openapi-document';

/** The MCP server (@hosting-account/mcp) at /mcp, over Streamable HTTP, for the caller's own credential. */
@Module({
  controllers: [McpController],
  providers: [McpSessions, McpRechecks, McpNoticesRepository, McpOrigins, Loopback, ClientRelay, OpenApiDocumentSource],
  exports: [ClientRelay, OpenApiDocumentSource],
})
export class McpModule {}
