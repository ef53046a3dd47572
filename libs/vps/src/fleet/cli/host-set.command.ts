import { Injectable } from '@nestjs/common';
import { CliArgs, CliCommand, CliUsageError, requireArg } from '@app/core';
import { HostState, OPERATOR_HOST_STATES } from '../../hosts/host.entity';
import { HostsService } from '../hosts.service';

/** The operator's host:set: enabled hosts take new VPSes; disabled and maintenance ones keep theirs and take none. */
@Injectable()
export class HostSetCommand extends CliCommand {
  readonly name = 'host:set';
  readonly usage = `host:set --name <name> --state ${OPERATOR_HOST_STATES.join('|')}`;
  readonly options = ['name', 'state'];

  constructor(private readonly hosts: HostsService) {
    super();
  }

  async run(args: CliArgs): Promise<unknown[]> {
    const state = requireArg(args, 'state');
    if (!(OPERATOR_HOST_STATES as readonly string[]).includes(state))
      throw new CliUsageError(`--state must be one of ${OPERATOR_HOST_STATES.join(', ')}`);
    return [await this.hosts.set(requireArg(args, 'name'), state as HostState)];
  }
}
