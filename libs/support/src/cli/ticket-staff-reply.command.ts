import { Injectable } from '@nestjs/common';
import { PickType } from '@nestjs/swagger';
import { IsOptional, IsString, IsUUID, Length } from 'class-validator';
import { CliArgs, CliCommand, requireArg, Trim, validateInput } from '@app/core';
import { ReplyRequest } from '../tickets/dto/ticket.request';
import { TicketsService } from '../tickets/tickets.service';

/** The reply route's message rules, plus what the operator names on the command line. */
class StaffReplyInput extends PickType(ReplyRequest, ['message']) {
  @IsUUID('all', { message: 'ticket must be a ticket id (UUID)' })
  ticket: string;

  @IsOptional()
  @Trim()
  @IsString()
  @Length(1, 100)
  name?: string;
}

@Injectable()
export class StaffReplyCommand extends CliCommand {
  readonly name = 'ticket:staff-reply';
  readonly usage = 'ticket:staff-reply --ticket <id> --message <text> [--name <staff name>]';
  readonly options = ['ticket', 'message', 'name'];

  constructor(private readonly tickets: TicketsService) {
    super();
  }

  async run(args: CliArgs): Promise<unknown[]> {
    const input = await validateInput(StaffReplyInput, {
      ticket: requireArg(args, 'ticket'),
      message: requireArg(args, 'message'),
      ...(typeof args.name === 'string' ? { name: args.name } : {}),
    });
    return [await this.tickets.staffReply(input.ticket, input.message, input.name)];
  }
}
