import { Injectable } from '@nestjs/common';
import { CliArgs, CliCommand, CliPartialFailure, CliUsageError, isUuidText, Problem, requireArg } from '@app/core';
import { BackupRunner } from '../backup-runner';
import { BackupsJob } from '../backups.job';

/**
 * `backup:run --service <id> [--no-wait]`: one backup of the VPS now, made by the process that runs
 * the command, which prints its outcome; on the embedded database while the API server runs, that
 * server makes it (runsInServer). `--no-wait` queues it for an API server's worker instead.
 */
@Injectable()
export class BackupRunCommand extends CliCommand {
  readonly name = 'backup:run';
  readonly usage = 'backup:run --service <service id> [--no-wait]';
  readonly options = ['service'];
  override readonly flags = ['no-wait'];
  override readonly runsInServer = true;

  constructor(
    private readonly job: BackupsJob,
    private readonly runner: BackupRunner,
  ) {
    super();
  }

  async run(args: CliArgs): Promise<unknown[]> {
    const serviceId = requireArg(args, 'service');
    if (!isUuidText(serviceId)) throw new CliUsageError('--service must be a service id (a UUID)');
    if (args['no-wait'] === true) {
      await this.job.enqueue(serviceId, 'operator');
      return [{ serviceId, queued: true }];
    }
    const result = await this.runner.run(serviceId, 'operator');
    if ('skipped' in result) throw Problem.conflict('invalid_state', `No backup was made: ${result.skipped}.`);
    const line = { serviceId, backupId: result.backupId, status: result.status, ...(result.error ? { error: result.error } : {}) };
    if (result.status === 'failed')
      throw new CliPartialFailure([line], new Problem(500, 'internal_error', `The backup failed: ${result.error ?? 'no reason given'}`));
    return [line];
  }
}
