import { Injectable } from '@nestjs/common';
import { CliArgs, CliCommand, CliPartialFailure, Problem, requireArg } from '@app/core';
import { HostEvacuation } from '../host-evacuation';

/** The operator's host:evacuate: every VPS of a dead host made again elsewhere; exits 1 when one of them failed. */
@Injectable()
export class HostEvacuateCommand extends CliCommand {
  readonly name = 'host:evacuate';
  readonly usage = 'host:evacuate --name <host> [--force]';
  readonly options = ['name'];
  override readonly flags = ['force'];

  constructor(private readonly evacuation: HostEvacuation) {
    super();
  }

  async run(args: CliArgs): Promise<unknown[]> {
    const name = requireArg(args, 'name');
    const lines = await this.evacuation.evacuate(name, args.force === true);
    const failed = lines.filter((line) => line.outcome === 'failed').length;
    if (failed)
      throw new CliPartialFailure(
        lines,
        Problem.conflict(
          'invalid_state',
          `${failed} of ${lines.length} VPSes were not evacuated; run host:evacuate again once the cause is fixed.`,
        ),
      );
    return lines;
  }
}
