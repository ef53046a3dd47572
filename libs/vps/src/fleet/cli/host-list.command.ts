import { Injectable } from '@nestjs/common';
import { CliCommand } from '@app/core';
import { HostsService } from '../hosts.service';

/** The operator's host:list: each host's capacity used and free, its state and VPS count. */
@Injectable()
export class HostListCommand extends CliCommand {
  readonly name = 'host:list';
  readonly usage = 'host:list';
  readonly options = [];

  constructor(private readonly hosts: HostsService) {
    super();
  }

  run(): Promise<unknown[]> {
    return this.hosts.list();
  }
}
