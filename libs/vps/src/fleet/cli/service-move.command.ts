import { Injectable } from '@nestjs/common';
import { CliArgs, CliCommand, CliUsageError, requireArg } from '@app/core';
import { VpsRelocations } from '../relocation/vps-relocations';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * The operator's service:move: a stopped VPS's machine, cold, to another host of its
 * region; with --stop a running one is stopped, moved and started again (its customer told).
 */
@Injectable()
export class ServiceMoveCommand extends CliCommand {
  readonly name = 'service:move';
  readonly usage = 'service:move --id <service> --to <host> [--stop]';
  readonly options = ['id', 'to'];
  override readonly flags = ['stop'];

  constructor(private readonly relocations: VpsRelocations) {
    super();
  }

  async run(args: CliArgs): Promise<unknown[]> {
    const id = requireArg(args, 'id').toLowerCase();
    if (!UUID.test(id)) throw new CliUsageError('--id must be a service id (a UUID)');
    const to = requireArg(args, 'to');
    return [await this.relocations.move(id, to, args.stop === true)];
  }
}
