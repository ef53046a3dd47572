import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { isoText, pageOfRows, PageQuery, RowsPage, runSql, sqlFirst, sqlRows } from '@app/core';
import type { ActionNote, ActionResult, GuestBoot, GuestNetwork, RestoredMachine } from '../compute/compute-provider';
import type { HostTarget } from '../hosts/host.entity';
import { HOST_OF_INSTANCE } from '../hosts/hosts.repository';
import type { ActionStatus, ActionType, PowerState, SnapshotConsistency } from '../vps.types';

/** What a rebuild installs (the seed's instance-id is the action's). */
export interface RebuildParams {
  boot: GuestBoot;
  network: GuestNetwork | null;
}

/** The image a snapshot fills. */
export interface SnapshotParams {
  snapshot: { imageId: string };
}

/** The backup a restore puts back: its object in the backup store and its size; what else it makes again if lost. */
export interface RestoreParams {
  restore: { backupId: string; key: string; sizeBytes: number; machine?: RestoredMachine };
}

/** What a rescue boots (the rescue image and its seed, with root's password hash), or an unrescue's network. */
export interface RescueParams {
  rescue: { boot: GuestBoot; network: GuestNetwork | null };
}
export interface UnrescueParams {
  unrescue: { network: GuestNetwork | null };
}

export type ActionParams = RebuildParams | SnapshotParams | RestoreParams | RescueParams | UnrescueParams;

/** Where a rescue action's params keep root's password hash (jsonb path). */
const RESCUE_PASSWORD_HASH = '{rescue,boot,seed,rootPasswordHash}';

/** An action's step before a worker takes it (progress 0). */
export const QUEUED_STEP = 'waiting to begin';

const ACTION_COLUMNS = `id, service_id, type, status, ${isoText('started_at')} AS started_at, ${isoText('finished_at')} AS finished_at,
       progress, step, error_code, error_message, error_detail, notice_code, notice_message,
       params->'snapshot'->>'imageId' AS snapshot_image_id, result->>'consistency' AS consistency`;

export interface ActionRow {
  id: string;
  service_id: string;
  type: ActionType;
  status: ActionStatus;
  started_at: string;
  finished_at: string | null;
  progress: number;
  step: string | null;
  error_code: string | null;
  error_message: string | null;
  /** What the hypervisor said, for operators only (never in InstanceActionResponse). */
  error_detail: string | null;
  notice_code: string | null;
  notice_message: string | null;
  snapshot_image_id: string | null;
  consistency: SnapshotConsistency | null;
}

/** What the runner needs to drive an action: the action and where its machine is. */
export interface PendingAction {
  id: string;
  serviceId: string;
  type: ActionType;
  status: ActionStatus;
  fromState: PowerState;
  providerTask: string | null;
  /** How long it has run, by the database's clock (a replica's own clock may be stepped). */
  ageMs: number;
  region: string | null;
  providerRef: string | null;
  host: HostTarget | null;
  /** A rebuild's image, keys and network; a snapshot's image. */
  params: ActionParams | null;
}

export interface ActionOutcome {
  status: Exclude<ActionStatus, 'running'>;
  error: ActionNote | null;
  /** The hypervisor's own words of a failure, for operators. */
  errorDetail?: string | null;
  notice: ActionNote | null;
  result?: ActionResult | null;
}

/** All SQL on instance_actions. Reads name the service, whose ownership the caller has checked. */
@Injectable()
export class InstanceActionsRepository {
  constructor(private readonly dataSource: DataSource) {}

  async hasRunning(manager: EntityManager, serviceId: string): Promise<boolean> {
    const rows = await sqlRows(manager, `SELECT 1 FROM instance_actions WHERE service_id = $1 AND status = 'running'`, [serviceId]);
    return rows.length > 0;
  }

  /** The cloud-init instance-id the VPS's disk was last installed with (its last rebuild's, else its provisioning's). */
  async lastInstanceId(manager: EntityManager, serviceId: string): Promise<string> {
    const rebuilt = await sqlFirst<{ id: string }>(
      manager,
      `SELECT id FROM instance_actions WHERE service_id = $1 AND type = 'rebuild' AND status = 'succeeded' ORDER BY started_at DESC LIMIT 1`,
      [serviceId],
    );
    return `iid-${rebuilt?.id ?? serviceId}`;
  }

  async insertRunning(
    manager: EntityManager,
    serviceId: string,
    type: ActionType,
    fromState: PowerState,
    params: ActionParams | null = null,
  ): Promise<ActionRow> {
    const action = await sqlFirst<ActionRow>(
      manager,
      `INSERT INTO instance_actions (service_id, type, status, from_state, params, step) VALUES ($1, $2, 'running', $3, $4::jsonb, $5)
       RETURNING ${ACTION_COLUMNS}`,
      [serviceId, type, fromState, params ? JSON.stringify(params) : null, QUEUED_STEP],
    );
    return action!;
  }

  page(serviceId: string, page: PageQuery): Promise<RowsPage<ActionRow>> {
    return pageOfRows(
      this.dataSource,
      {
        table: 'instance_actions',
        columns: ACTION_COLUMNS,
        where: 'service_id = $1',
        params: [serviceId],
        orderBy: 'started_at DESC, id DESC',
      },
      page,
    );
  }

  async findForService(serviceId: string, id: string): Promise<ActionRow | null> {
    const row = await sqlFirst<ActionRow>(
      this.dataSource,
      `SELECT ${ACTION_COLUMNS} FROM instance_actions WHERE id = $1 AND service_id = $2`,
      [id, serviceId],
    );
    return row ?? null;
  }

  /** Unscoped, for the runner: running actions started at least `olderThanMs` ago. */
  async runningIds(olderThanMs: number): Promise<string[]> {
    const rows = await sqlRows<{ id: string }>(
      this.dataSource,
      `SELECT id FROM instance_actions WHERE status = 'running' AND started_at <= now() - $1::double precision * interval '1 millisecond'`,
      [olderThanMs],
    );
    return rows.map((row) => row.id);
  }

  /** Unscoped, for the runner. */
  async findPending(id: string): Promise<PendingAction | null> {
    const row = await sqlFirst<PendingAction>(
      this.dataSource,
      `SELECT a.id, a.service_id AS "serviceId", a.type, a.status, a.from_state AS "fromState", a.provider_task AS "providerTask",
              (extract(epoch FROM clock_timestamp() - a.started_at) * 1000)::float8 AS "ageMs", i.region, i.provider_ref AS "providerRef", a.params, ${HOST_OF_INSTANCE}
         FROM instance_actions a LEFT JOIN vps_instances i ON i.service_id = a.service_id
        WHERE a.id = $1`,
      [id],
    );
    return row;
  }

  /** Where a running action stands; its progress never goes back, and stays below 100 until it has succeeded. */
  async setStep(id: string, progress: number, step: string): Promise<void> {
    await runSql(
      this.dataSource,
      `UPDATE instance_actions SET progress = GREATEST(progress, LEAST(99, $2::int)), step = $3 WHERE id = $1 AND status = 'running'`,
      [id, Math.round(progress), step.slice(0, 200)],
    );
  }

  async setProviderTask(id: string, task: string): Promise<void> {
    await runSql(this.dataSource, `UPDATE instance_actions SET provider_task = $2 WHERE id = $1 AND status = 'running'`, [id, task]);
  }

  /**
   * Records the outcome of a still running action; false if it was recorded already (by another replica). A rescue's root
   * password hash was needed only to write the seed, so it goes with the action's end, whatever the outcome.
   */
  async finish(manager: EntityManager, id: string, outcome: ActionOutcome): Promise<boolean> {
    const { error, notice, result, errorDetail } = outcome;
    const finished = await sqlRows(
      manager,
      `WITH done AS (
         UPDATE instance_actions SET status = $2, finished_at = now(), error_code = $3, error_message = $4, notice_code = $5, notice_message = $6,
                result = $7::jsonb, params = params #- '${RESCUE_PASSWORD_HASH}', error_detail = $8,
                progress = CASE WHEN $9 THEN 100 ELSE progress END, step = NULL
          WHERE id = $1 AND status = 'running' RETURNING id
       ) SELECT id FROM done`,
      [
        id,
        outcome.status,
        error?.code ?? null,
        error?.message ?? null,
        notice?.code ?? null,
        notice?.message ?? null,
        result ? JSON.stringify(result) : null,
        errorDetail?.slice(0, 2000) ?? null,
        outcome.status === 'succeeded',
      ],
    );
    return finished.length > 0;
  }

  /** Demo data: a little power history, outcomes of both kinds. */
  async insertDemoHistory(manager: EntityManager, serviceId: string): Promise<void> {
    await runSql(
      manager,
      `INSERT INTO instance_actions (service_id, type, status, from_state, started_at, finished_at, error_code, error_message, progress) VALUES
         ($1, 'reboot', 'failed',    'running', now() - interval '4 days',            now() - interval '4 days' + interval '30 seconds',
              'hypervisor_unavailable', 'The hypervisor could not be reached.', 5),
         ($1, 'stop',   'succeeded', 'running', now() - interval '3 days',            now() - interval '3 days' + interval '4 seconds', NULL, NULL, 100),
         ($1, 'start',  'succeeded', 'stopped', now() - interval '3 days' + interval '10 minutes', now() - interval '3 days' + interval '10 minutes 3 seconds', NULL, NULL, 100),
         ($1, 'reboot', 'succeeded', 'running', now() - interval '2 hours',           now() - interval '2 hours' + interval '6 seconds', NULL, NULL, 100)`,
      [serviceId],
    );
  }
}
