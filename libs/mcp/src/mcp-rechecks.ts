import { Injectable } from '@nestjs/common';
import { AppConfig, AnnouncedRechecks } from '@app/core';
import { McpNoticesRepository } from './mcp-notices.repository';
import { McpSessions } from './mcp-sessions';

/** A revoked key, an ended session or a changed password makes every API process check the account's MCP sessions now, as consoles do. */
@Injectable()
export class McpRechecks extends AnnouncedRechecks {
  constructor(config: AppConfig, notices: McpNoticesRepository, sessions: McpSessions) {
    super(
      {
        databaseUrl: config.databaseUrl ?? null,
        channel: 'mcp_rechecks',
        notify: (channel, accountId) => notices.notifyProcesses(channel, accountId),
        what: 'MCP session',
      },
      sessions,
      'Mcp',
    );
  }
}
