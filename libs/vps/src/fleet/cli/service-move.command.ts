import { Injectable } from '@nestjs/common';
import { CliArgs, CliCommand, CliUsageError, isUuidText, requireArg } from '@app/core';
import { VpsRelocations } from '../relocation/vps-relocations';

/**
 * The operator's service:move: a stopped VPS's machine, cold, to another host of its
 * region; a running one with --live while it runs (its customer told after), or with --stop (or
 * --cold) stopped, moved and started again (its customer told before and after).
 */
@Injectable()
export class ServiceMoveCommand extends CliCommand {
  readonly name = 'service:move';
  readonly usage = 'service:move --id <service> --to <host> [--live | --stop]';
  readonly options = ['id', 'to'];
  override readonly flags = ['live', 'stop', 'cold'];

  constructor(private readonly relocations: VpsRelocations) {
    super();
  }

  async run(args: CliArgs): Promise<unknown[]> {
    const id = requireArg(args, 'id').toLowerCase();
    if (!isUuidText(id)) throw new CliUsageError('--id must be a service id (a UUID)');
    const to = requireArg(args, 'to');
    const cold = args.stop === true || args.cold === true;
    if (cold && args.live === true) throw new CliUsageError('--live and --stop are one or the other');
    return [await this.relocations.move(id, to, args.live === true ? 'live' : cold ? 'cold' : null)];
  }
}
