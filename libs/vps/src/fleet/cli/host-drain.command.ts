import { Injectable } from '@nestjs/common';
import { CliArgs, CliCommand, CliPartialFailure, Problem, requireArg } from '@app/core';
import { HostDrain } from '../host-drain';

/** The operator's host:drain: maintenance, then every VPS moved to another host of the region (a running one live; --cold: stopped and started again). */
@Injectable()
export class HostDrainCommand extends CliCommand {
  readonly name = 'host:drain';
  readonly usage = 'host:drain --name <host> [--cold]';
  readonly options = ['name'];
  override readonly flags = ['cold'];

  constructor(private readonly drains: HostDrain) {
    super();
  }

  async run(args: CliArgs): Promise<unknown[]> {
    const name = requireArg(args, 'name');
    const lines = await this.drains.drain(name, args.cold === true ? 'cold' : 'live');
    const left = lines.filter((line) => line.outcome !== 'moved').length;
    if (!left) return lines;
    throw new CliPartialFailure(
      lines,
      Problem.conflict(
        'invalid_state',
        `${left} VPS(es) could not be moved off ${name} and stay there; run host:drain again once there is room.`,
      ),
    );
  }
}
