import { Injectable } from '@nestjs/common';
import { LeaseStore, runSql, sqlRows, sqlFirst } from '@app/core';
import { DataSource, EntityManager } from 'typeorm';
import type { MachineSpec } from '../../compute/compute-provider';
import type { HostTarget } from '../../hosts/host.entity';
import { HOST_OF_INSTANCE } from '../../hosts/hosts.repository';
import type { PowerState } from '../../vps.types';

/** A provisioning this process holds the lease of, with what its steps and its outcome need. */
export interface ProvisioningWork {
  serviceId: string;
  accountId: string;
  serviceName: string;
  region: string;
  /** The host placement chose; null: the region's configured hypervisor. */
  host: HostTarget | null;
  spec: MachineSpec;
  /** This attempt included. */
  attempts: number;
}

export interface ProvisioningState {
  status: 'running' | 'succeeded' | 'failed';
  powerState: PowerState;
  lastError: string | null;
}

/** All SQL on vps_provisioning: the durable record of each VPS's machine being made. */
@Injectable()
export class VpsProvisioningRepository implements LeaseStore<string, ProvisioningWork> {
  constructor(private readonly dataSource: DataSource) {}

  async insertMany(manager: EntityManager, serviceIds: string[], specs: MachineSpec[]): Promise<void> {
    await runSql(manager, `INSERT INTO vps_provisioning (service_id, spec) SELECT * FROM unnest($1::uuid[], $2::jsonb[])`, [
      serviceIds,
      specs.map((spec) => JSON.stringify(spec)),
    ]);
  }

  /** The size the VPS's machine was made with; null for one provisioning did not make (adopted). */
  async sizeOf(manager: EntityManager, serviceId: string): Promise<{ vcpus: number; memoryMb: number } | null> {
    const row = await sqlFirst<{ vcpus: number; memoryMb: number }>(
      manager,
      `SELECT (spec->>'vcpus')::int AS vcpus, (spec->>'memoryMb')::int AS "memoryMb" FROM vps_provisioning WHERE service_id = $1`,
      [serviceId],
    );
    return row ?? null;
  }

  /** Takes the lease of a provisioning that still runs and that no process holds (or whose holder's ran out), counting the attempt. */
  async tryTake(serviceId: string, seconds: number): Promise<ProvisioningWork | null> {
    const row = await sqlFirst<ProvisioningWork>(
      this.dataSource,
      `WITH leased AS (
         UPDATE vps_provisioning
            SET lease_until = now() + make_interval(secs => $2), attempts = attempts + 1, updated_at = now()
          WHERE service_id = $1 AND status = 'running' AND (lease_until IS NULL OR lease_until < now())
          RETURNING service_id, spec, attempts
       )
       SELECT l.service_id AS "serviceId", s.account_id AS "accountId", s.name AS "serviceName", i.region, l.spec, l.attempts,
              ${HOST_OF_INSTANCE}
         FROM leased l JOIN services s ON s.id = l.service_id JOIN vps_instances i ON i.service_id = l.service_id`,
      [serviceId, seconds],
    );
    return row ?? null;
  }

  /** Keeps the lease while a step is under way; does not count as progress for the idle scan. */
  async renew(serviceId: string, seconds: number): Promise<void> {
    await runSql(
      this.dataSource,
      `UPDATE vps_provisioning SET lease_until = now() + make_interval(secs => $2) WHERE service_id = $1 AND status = 'running'`,
      [serviceId, seconds],
    );
  }

  /** Gives the lease back after a failed attempt that will be retried. */
  async release(serviceId: string, error: string | null): Promise<void> {
    await runSql(
      this.dataSource,
      `UPDATE vps_provisioning SET lease_until = NULL, last_error = $2, updated_at = now() WHERE service_id = $1 AND status = 'running'`,
      [serviceId, error?.slice(0, 2000) ?? null],
    );
  }

  /** Ends a provisioning that still runs; false when it had already ended (the service was terminated meanwhile). */
  async finish(manager: EntityManager, serviceId: string, status: 'succeeded' | 'failed', error: string | null): Promise<boolean> {
    const ended = await sqlRows(
      manager,
      `WITH ended AS (
         UPDATE vps_provisioning
            SET status = $2, last_error = coalesce($3, last_error), lease_until = NULL, finished_at = now(), updated_at = now()
          WHERE service_id = $1 AND status = 'running'
          RETURNING service_id
       ) SELECT service_id FROM ended`,
      [serviceId, status, error?.slice(0, 2000) ?? null],
    );
    return ended.length > 0;
  }

  async states(serviceIds: string[]): Promise<Map<string, ProvisioningState>> {
    const rows = await sqlRows<ProvisioningState & { id: string }>(
      this.dataSource,
      `SELECT p.service_id AS id, p.status, i.power_state AS "powerState", p.last_error AS "lastError"
         FROM vps_provisioning p JOIN vps_instances i ON i.service_id = p.service_id
        WHERE p.service_id = ANY($1::uuid[])`,
      [serviceIds],
    );
    return new Map(rows.map(({ id, ...state }) => [id, state]));
  }

  /**
   * Provisionings no process works on: a holder that died (its lease ran out) or one whose job was
   * lost or ran out of retries (no lease, no attempt for `idleSeconds`). Each is marked as just
   * handed out, so the next scan does not queue it again while its new job waits.
   */
  async takeAbandoned(idleSeconds: number): Promise<string[]> {
    const rows = await sqlRows<{ service_id: string }>(
      this.dataSource,
      `WITH taken AS (
         UPDATE vps_provisioning SET lease_until = NULL, updated_at = now()
          WHERE service_id IN (
                SELECT service_id FROM vps_provisioning
                 WHERE status = 'running'
                   AND (lease_until < now() OR (lease_until IS NULL AND updated_at < now() - make_interval(secs => $1)))
                 ORDER BY updated_at LIMIT 500 FOR UPDATE SKIP LOCKED)
          RETURNING service_id
       ) SELECT service_id FROM taken`,
      [idleSeconds],
    );
    return rows.map((row) => row.service_id);
  }
}
