import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { pgNotify } from '@app/core';

/** The MCP area has no table: its one statement is a NOTIFY to the other API processes. */
@Injectable()
export class McpNoticesRepository {
  constructor(private readonly dataSource: DataSource) {}

  notifyProcesses(channel: string, payload: string): Promise<void> {
    return pgNotify(this.dataSource, channel, payload);
  }
}
