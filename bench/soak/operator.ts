import { setTimeout as sleep } from 'node:timers/promises';
import { Random } from './random';
import { SoakWorld } from './world';

/** What the operator did: backups queued with `backup:run --no-wait`, and the commands that failed. */
export interface OperatorRecord {
  backupsQueued: number;
  failed: string[];
}

/**
 * The operator's part of the day: now and then one backup of a VPS whose owner enabled backups,
 * queued for the replicas' workers (a replica killed mid-copy leaves it to the lease's expiry).
 */
export class SoakOperator {
  readonly record: OperatorRecord = { backupsQueued: 0, failed: [] };

  constructor(
    private readonly world: SoakWorld,
    private readonly random: Random,
    private readonly began: number,
  ) {}

  async run(untilMs: number, meanGapMs: number): Promise<void> {
    while (Date.now() + meanGapMs < untilMs) {
      await sleep(this.random.int(Math.round(meanGapMs / 2), Math.round((meanGapMs * 3) / 2)));
      const at = Date.now() - this.began;
      try {
        const enabled = this.world.postgres.rows<{ id: string }>('SELECT service_id AS id FROM vps_backup_schedules ORDER BY service_id');
        if (!enabled.length) continue;
        const { id } = this.random.pick(enabled);
        const queued = await this.world.queueBackup(id);
        if (queued.code !== 0) throw new Error(`backup:run --service ${id}: exit ${queued.code} ${queued.stderr.slice(0, 300)}`);
        this.record.backupsQueued++;
      } catch (err) {
        // A fault's doing (the database restarting): the operator tries again at the next turn.
        this.record.failed.push(`at ${at} ms: ${(err as Error).message.slice(0, 400)}`);
      }
    }
  }
}
