import { Injectable } from '@nestjs/common';
import { CliArgs, CliCommand, CliUsageError, requireArg } from '@app/core';
import { TicketsService } from './tickets.service';

@Injectable()
export class StaffReplyCommand extends CliCommand {
  readonly name = 'ticket:staff-reply';
  readonly usage = 'ticket:staff-reply --ticket <id> --message <text> [--name <staff name>]';
  readonly options = ['ticket', 'message', 'name'];

  constructor(private readonly tickets: TicketsService) {
    super();
  }

  async run(args: CliArgs): Promise<unknown[]> {
    const ticket = requireArg(args, 'ticket');
    const message = requireArg(args, 'message');
    if (!/^[0-9a-f-]{36}$/i.test(ticket)) throw new CliUsageError('--ticket must be a ticket id (UUID)');
    if (message.length > 64000) throw new CliUsageError('--message must be at most 64000 characters');
    const name = typeof args.name === 'string' && args.name.trim() ? args.name.trim().slice(0, 100) : undefined;
    return [await this.tickets.staffReply(ticket, message, name)];
  }
}
