import { Injectable } from '@nestjs/common';
import { CliArgs, CliCommand, CliUsageError, isUuidText, requireArg } from '@app/core';
import { InstanceActionsRepository } from '../instance-actions.repository';
import { VolumesRepository } from '../../volumes/volumes.repository';

const MAX_LIMIT = 100;

/** One action as the operator sees it: the customer's fields, and in `error.detail` what the hypervisor or backend said. */
interface OperatorAction {
  id: string;
  type: string;
  status: string;
  progress: number;
  step: string | null;
  startedAt: string;
  finishedAt: string | null;
  error: { code: string; message: string; detail: string | null } | null;
}

/**
 * The operator's service:actions: a VPS's or a volume's latest actions, newest first, with the
 * hypervisor's own reason of a failure (`error.detail`), which the customer's API never shows.
 */
@Injectable()
export class ServiceActionsCommand extends CliCommand {
  readonly name = 'service:actions';
  readonly usage = `service:actions --id <service> [--limit N (1-${MAX_LIMIT}, default 20)]`;
  readonly options = ['id', 'limit'];
  /** Read-only: on the embedded database it runs in the server that owns it, while that runs. */
  override readonly runsInServer = true;

  constructor(
    private readonly instanceActions: InstanceActionsRepository,
    private readonly volumes: VolumesRepository,
  ) {
    super();
  }

  async run(args: CliArgs): Promise<unknown[]> {
    const id = requireArg(args, 'id').toLowerCase();
    if (!isUuidText(id)) throw new CliUsageError('--id must be a service id (a UUID)');
    const limit = args.limit === undefined ? 20 : /^\d+$/.test(String(args.limit)) ? Number(args.limit) : NaN;
    if (!(limit >= 1 && limit <= MAX_LIMIT)) throw new CliUsageError(`--limit must be a whole number from 1 to ${MAX_LIMIT}`);
    const page = { page: 1, pageSize: limit };
    const { rows } = await this.instanceActions.page(id, page);
    if (rows.length)
      return rows.map((row): OperatorAction => ({
        id: row.id,
        type: row.type,
        status: row.status,
        progress: row.progress,
        step: row.step,
        startedAt: row.started_at,
        finishedAt: row.finished_at,
        error: row.error_code ? { code: row.error_code, message: row.error_message ?? '', detail: row.error_detail } : null,
      }));
    const volumeActions = (await this.volumes.pageOfActions(id, page)).rows;
    return volumeActions.map((row): OperatorAction => ({
      id: row.id,
      type: row.type,
      status: row.status,
      progress: row.progress,
      step: row.step,
      startedAt: row.startedAt,
      finishedAt: row.finishedAt,
      error: row.errorCode ? { code: row.errorCode, message: row.errorMessage ?? '', detail: row.errorDetail } : null,
    }));
  }
}
