import { Injectable } from '@nestjs/common';
import { CliArgs, CliCommand, CliUsageError, requireArg } from '@app/core';
import { BackupsJob } from '../backups.job';

/** `backup:run --service <id>`: queues one backup of the VPS now; an API server's worker makes it (its row shows in the list). */
@Injectable()
export class BackupRunCommand extends CliCommand {
  readonly name = 'backup:run';
  readonly usage = 'backup:run --service <service id>';
  readonly options = ['service'];

  constructor(private readonly job: BackupsJob) {
    super();
  }

  async run(args: CliArgs): Promise<unknown[]> {
    const serviceId = requireArg(args, 'service');
    if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(serviceId))
      throw new CliUsageError('--service must be a service id (a UUID)');
    await this.job.enqueue(serviceId, 'operator');
    return [{ serviceId, queued: true }];
  }
}
