import { Injectable } from '@nestjs/common';
import { IsIn, IsUUID } from 'class-validator';
import { CliArgs, CliCommand, requireArg, staffActor, validateInput } from '@app/core';
import { ServiceStatusService } from '../service-status.service';
import { SERVICE_STATUSES, ServiceStatus } from '../service.types';

class SetServiceStatusInput {
  @IsUUID('all', { message: 'id must be a service id (UUID)' })
  id: string;

  @IsIn(SERVICE_STATUSES, { message: `status must be one of ${SERVICE_STATUSES.join(', ')}` })
  status: ServiceStatus;
}

@Injectable()
export class ServiceSetStatusCommand extends CliCommand {
  readonly name = 'service:set-status';
  readonly usage = 'service:set-status --id <service> --status pending|active|suspended|cancelled|terminated [--reason <text>]';
  readonly options = ['id', 'status', 'reason'];

  constructor(private readonly statuses: ServiceStatusService) {
    super();
  }

  async run(args: CliArgs): Promise<unknown[]> {
    const { id, status } = await validateInput(SetServiceStatusInput, { id: requireArg(args, 'id'), status: requireArg(args, 'status') });
    const reason = typeof args.reason === 'string' && args.reason.trim() ? args.reason.trim().slice(0, 500) : null;
    return [await this.statuses.setStatus(id.toLowerCase(), status, reason, staffActor())];
  }
}
