import { Injectable } from '@nestjs/common';
import { CliArgs, CliCommand, requireArg } from '@app/core';
import { HostsService } from '../hosts.service';

/** The operator's host:remove: refused while the host holds a VPS. */
@Injectable()
export class HostRemoveCommand extends CliCommand {
  readonly name = 'host:remove';
  readonly usage = 'host:remove --name <name>';
  readonly options = ['name'];

  constructor(private readonly hosts: HostsService) {
    super();
  }

  async run(args: CliArgs): Promise<unknown[]> {
    return [await this.hosts.remove(requireArg(args, 'name'))];
  }
}
