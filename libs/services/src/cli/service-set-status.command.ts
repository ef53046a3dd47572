import { Injectable } from '@nestjs/common';
import { CliArgs, CliCommand, CliUsageError, requireArg } from '@app/core';
import { ServiceStatusService } from '../service-status.service';
import { SERVICE_STATUSES } from '../service.types';
import { oneOf } from './cli-values';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

@Injectable()
export class ServiceSetStatusCommand extends CliCommand {
  readonly name = 'service:set-status';
  readonly usage = 'service:set-status --id <service> --status pending|active|suspended|cancelled|terminated [--reason <text>]';
  readonly options = ['id', 'status', 'reason'];

  constructor(private readonly statuses: ServiceStatusService) {
    super();
  }

  async run(args: CliArgs): Promise<unknown[]> {
    const id = requireArg(args, 'id');
    if (!UUID.test(id)) throw new CliUsageError('--id must be a service id (UUID)');
    requireArg(args, 'status');
    const status = oneOf(args, 'status', SERVICE_STATUSES)!;
    const reason = typeof args.reason === 'string' && args.reason.trim() ? args.reason.trim().slice(0, 500) : null;
    return [await this.statuses.setStatus(id.toLowerCase(), status, reason)];
  }
}
