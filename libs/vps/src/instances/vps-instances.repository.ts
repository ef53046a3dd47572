import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { isoText, poolQuery, runSql, sqlFirst, sqlRows } from '@app/core';
import type { GuestNetwork } from '../compute/compute-provider';
import type { HostTarget } from '../hosts/host.entity';
import { HOST_OF_INSTANCE } from '../hosts/hosts.repository';
import type { PowerState } from '../vps.types';

export interface NewInstances {
  serviceIds: string[];
  region: string;
  powerStates: PowerState[];
  providerRefs: (string | null)[];
  ipv4: (string | null)[];
  ipv6: (string | null)[];
  sshHosts: (string | null)[];
  sshPorts: (number | null)[];
  networks: (GuestNetwork | null)[];
  /** Where placement put each VPS; null: the region's configured hypervisor. */
  hostIds: (string | null)[];
  imageId: string | null;
  diskGb: number | null;
}

/** What a rebuild or a snapshot needs of a VPS besides its service row. */
export interface GuestFacts {
  diskGb: number | null;
  network: GuestNetwork | null;
  imageId: string | null;
}

/** A settled VPS of a live service, as the reconciler compares it with its machine. */
export interface SettledInstance {
  id: string;
  region: string;
  providerRef: string | null;
  host: HostTarget | null;
  powerState: PowerState;
}

/** Which machine a VPS has, as its sub-resources decide on it. */
export interface MachineState {
  powerState: PowerState;
  region: string | null;
  providerRef: string | null;
  host: HostTarget | null;
}

/** What the service response shows of a VPS (its `instance`). */
export interface InstanceRow {
  id: string;
  powerState: PowerState;
  region: string | null;
  ipv4: string | null;
  ipv6: string | null;
  sshHost: string | null;
  sshPort: number | null;
  /** The service is terminated: its address is no longer its own. */
  terminated?: boolean;
  /** When the next daily backup is due; null: backups are not enabled. */
  backupsNextRunAt?: string | null;
  /** False while its host is unreachable; absent: true. */
  hostReachable?: boolean;
  /** Booted from the rescue system. */
  rescue?: boolean;
  /** The cloud firewalls applied, oldest first. */
  firewalls?: { id: string; name: string; status: 'pending' | 'applied' | 'failed' }[];
  /** The volumes attached, oldest attachment first. */
  volumes?: { id: string; name: string; sizeGb: number; state: 'attaching' | 'attached' | 'detaching' | 'resizing' }[];
  /** The service's name (the default PTR's first label) and the PTRs its owner set, by address. */
  name?: string;
  publicAddresses?: boolean;
  ptrs?: Record<string, string> | null;
  /** The public host keys the API made for the VPS's system and for its rescue system. */
  hostKey?: string | null;
  rescueHostKey?: string | null;
}

export interface ObservedChange {
  id: string;
  recorded: PowerState;
  real: PowerState;
}

/** The kind's part of a page of VPSes ($1: their service ids); bench/baseline/server.js runs the same text. */
export const INSTANCE_SUMMARIES_SQL = `SELECT i.service_id AS id, i.power_state AS "powerState", i.region, i.ipv4, i.ipv6, i.ssh_host AS "sshHost", i.ssh_port AS "sshPort",
        s.status = 'terminated' AS terminated, ${isoText('b.next_run_at')} AS "backupsNextRunAt", s.name,
        i.network->>'mode' IS DISTINCT FROM 'user' AS "publicAddresses", p.ptrs,
        coalesce(h.state <> 'unreachable', true) AS "hostReachable", r.service_id IS NOT NULL AS rescue,
        kv.public_key AS "hostKey", kr.public_key AS "rescueHostKey",
        coalesce(f.firewalls, '[]') AS firewalls, coalesce(v.volumes, '[]') AS volumes
   FROM vps_instances i
   JOIN services s ON s.id = i.service_id
   LEFT JOIN vps_backup_schedules b ON b.service_id = i.service_id
   LEFT JOIN hosts h ON h.id = i.host_id
   LEFT JOIN vps_rescues r ON r.service_id = i.service_id
   LEFT JOIN vps_host_keys kv ON kv.service_id = i.service_id AND kv.system = 'vps'
   LEFT JOIN vps_host_keys kr ON kr.service_id = i.service_id AND kr.system = 'rescue'
   LEFT JOIN (SELECT service_id, json_object_agg(address, ptr) AS ptrs
                FROM vps_address_ptrs WHERE service_id = ANY($1::uuid[]) GROUP BY service_id) p ON p.service_id = i.service_id
   LEFT JOIN (SELECT a.service_id, json_agg(json_build_object('id', fw.id, 'name', fw.name, 'status', a.status) ORDER BY a.created_at, fw.id) AS firewalls
                FROM firewall_attachments a JOIN firewalls fw ON fw.id = a.firewall_id
               WHERE a.service_id = ANY($1::uuid[]) GROUP BY a.service_id) f ON f.service_id = i.service_id
   LEFT JOIN (SELECT vol.attached_to, json_agg(json_build_object('id', vol.service_id, 'name', vs.name, 'sizeGb', vol.size_gb, 'state', vol.state)
                                        ORDER BY vol.updated_at, vol.service_id) AS volumes
                FROM volumes vol JOIN services vs ON vs.id = vol.service_id
               WHERE vol.attached_to = ANY($1::uuid[]) GROUP BY vol.attached_to) v ON v.attached_to = i.service_id
  WHERE i.service_id = ANY($1::uuid[])`;

/** All SQL on vps_instances: the API's record of each VPS's machine. */
@Injectable()
export class VpsInstancesRepository {
  constructor(private readonly dataSource: DataSource) {}

  async insertMany(manager: EntityManager, rows: NewInstances): Promise<void> {
    await runSql(
      manager,
      `INSERT INTO vps_instances (service_id, power_state, region, ipv4, ipv6, provider_ref, ssh_host, ssh_port, network, image_id, disk_gb, host_id)
       SELECT id, state, $2, v4, v6, ref, host, port, net::jsonb, $10, $11, host_id
         FROM unnest($1::uuid[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::int[], $9::text[], $12::uuid[])
           AS r(id, v4, v6, state, ref, host, port, net, host_id)`,
      [
        rows.serviceIds,
        rows.region,
        rows.ipv4,
        rows.ipv6,
        rows.powerStates,
        rows.providerRefs,
        rows.sshHosts,
        rows.sshPorts,
        rows.networks.map((n) => (n ? JSON.stringify(n) : null)),
        rows.imageId,
        rows.diskGb,
        rows.hostIds,
      ],
    );
  }

  /** Read after the service row is locked, in a statement of its own (ServicesRepository.lockForAccount says why). */
  machineOf(serviceId: string, manager?: EntityManager): Promise<MachineState | null> {
    return sqlFirst<MachineState>(
      manager ?? this.dataSource,
      `SELECT power_state AS "powerState", region, provider_ref AS "providerRef", ${HOST_OF_INSTANCE} FROM vps_instances i WHERE service_id = $1`,
      [serviceId],
    );
  }

  /**
   * The list's and the one-service response's part of these VPSes, in one statement: what a VPS
   * has several of (reverse DNS, firewalls, volumes) is aggregated for the whole page at once and
   * joined, never read by a subquery per VPS.
   */
  summaries(serviceIds: string[], manager?: EntityManager): Promise<InstanceRow[]> {
    return poolQuery<InstanceRow>(manager ?? this.dataSource, INSTANCE_SUMMARIES_SQL, [serviceIds]);
  }

  async guestOf(manager: EntityManager, serviceId: string): Promise<GuestFacts> {
    const row = await sqlFirst<{ disk_gb: number | null; network: GuestNetwork | null; image_id: string | null }>(
      manager,
      `SELECT disk_gb, network, image_id FROM vps_instances WHERE service_id = $1`,
      [serviceId],
    );
    return { diskGb: row?.disk_gb ?? null, network: row?.network ?? null, imageId: row?.image_id ?? null };
  }

  async networkOf(serviceId: string): Promise<GuestNetwork | null> {
    const row = await sqlFirst<{ network: GuestNetwork | null }>(
      this.dataSource,
      `SELECT network FROM vps_instances WHERE service_id = $1`,
      [serviceId],
    );
    return row?.network ?? null;
  }

  async setImage(manager: EntityManager, serviceId: string, imageId: string): Promise<void> {
    await runSql(manager, `UPDATE vps_instances SET image_id = $2, updated_at = now() WHERE service_id = $1`, [serviceId, imageId]);
  }

  async setPowerState(manager: EntityManager, serviceId: string, powerState: PowerState): Promise<void> {
    await runSql(manager, `UPDATE vps_instances SET power_state = $2, updated_at = now() WHERE service_id = $1`, [serviceId, powerState]);
  }

  /** The SSH port forwarded on the VPS's new host (a moved VPS whose port was taken there). */
  async setSshPort(manager: EntityManager, serviceId: string, port: number): Promise<void> {
    await runSql(
      manager,
      `UPDATE vps_instances SET ssh_port = $2, network = CASE WHEN network IS NULL THEN NULL ELSE jsonb_set(network, '{sshPort}', to_jsonb($2::int)) END,
              updated_at = now() WHERE service_id = $1`,
      [serviceId, port],
    );
  }

  /** The machine provisioning made (or null: the provider keeps none) and the state it left it in. */
  async setMachine(manager: EntityManager, serviceId: string, providerRef: string | null, powerState: PowerState): Promise<void> {
    await runSql(manager, `UPDATE vps_instances SET provider_ref = $2, power_state = $3, updated_at = now() WHERE service_id = $1`, [
      serviceId,
      providerRef,
      powerState,
    ]);
  }

  /** A terminated VPS: stopped, and a provisioning still under way ends (its job then removes what it made). */
  async retire(manager: EntityManager, serviceId: string): Promise<void> {
    await runSql(manager, `UPDATE vps_instances SET power_state = 'stopped', updated_at = now() WHERE service_id = $1`, [serviceId]);
    await runSql(
      manager,
      `UPDATE vps_provisioning SET status = 'failed', last_error = 'terminated', lease_until = NULL, finished_at = now(), updated_at = now()
        WHERE service_id = $1 AND status = 'running'`,
      [serviceId],
    );
  }

  /** Whether a service that is not terminated already has this machine. */
  async machineTaken(manager: EntityManager, providerRef: string): Promise<boolean> {
    const taken = await sqlRows(
      manager,
      `SELECT 1 FROM vps_instances i JOIN services s ON s.id = i.service_id WHERE i.provider_ref = $1 AND s.status <> 'terminated'`,
      [providerRef],
    );
    return taken.length > 0;
  }

  /**
   * Of these hypervisor names (`svc-<service id>...`), the ones a live VPS owns: its service is not
   * terminated and its provisioning did not fail, or the name is a live VPS's adopted machine.
   */
  async liveMachineNames(names: string[]): Promise<Set<string>> {
    const rows = await sqlRows<{ name: string }>(
      this.dataSource,
      `SELECT n.name
         FROM unnest($1::text[]) AS n(name)
        WHERE EXISTS (
                SELECT 1 FROM services s LEFT JOIN vps_provisioning p ON p.service_id = s.id
                 WHERE s.id = substring(n.name FROM '^svc-([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})')::uuid
                   AND s.status <> 'terminated' AND (p.status IS NULL OR p.status <> 'failed'))
           OR EXISTS (
                SELECT 1 FROM vps_instances i JOIN services s ON s.id = i.service_id
                 WHERE i.provider_ref = n.name AND s.status <> 'terminated')`,
      [names],
    );
    return new Set(rows.map((row) => row.name));
  }

  /**
   * Of these hypervisor names, the ones this database made or adopted, whatever became of the
   * service since: the service in the name is one of its own (service ids are random, so another
   * deployment's never are), or the name is one of its VPSes' machines.
   */
  async ownMachineNames(names: string[]): Promise<Set<string>> {
    const rows = await sqlRows<{ name: string }>(
      this.dataSource,
      `SELECT n.name
         FROM unnest($1::text[]) AS n(name)
        WHERE EXISTS (
                SELECT 1 FROM services s
                 WHERE s.id = substring(n.name FROM '^svc-([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})')::uuid)
           OR EXISTS (SELECT 1 FROM vps_instances i WHERE i.provider_ref = n.name)`,
      [names],
    );
    return new Set(rows.map((row) => row.name));
  }

  /** A settled VPS whose machine is gone shows `error` (unless an action or another writer got there first). */
  async markMissing(manager: EntityManager, serviceId: string): Promise<boolean> {
    const marked = await sqlRows(
      manager,
      `WITH marked AS (
         UPDATE vps_instances i SET power_state = 'error', updated_at = now()
          WHERE i.service_id = $1 AND i.power_state IN ('running', 'stopped')
            AND NOT EXISTS (SELECT 1 FROM instance_actions a WHERE a.service_id = i.service_id AND a.status = 'running')
          RETURNING i.service_id
       ) SELECT service_id FROM marked`,
      [serviceId],
    );
    return marked.length > 0;
  }

  /** Unscoped, for the reconciler: every VPS of a live service in a settled power state. */
  settled(): Promise<SettledInstance[]> {
    return sqlRows<SettledInstance>(
      this.dataSource,
      `SELECT i.service_id AS id, i.region, i.provider_ref AS "providerRef", i.power_state AS "powerState", ${HOST_OF_INSTANCE}
         FROM vps_instances i JOIN services s ON s.id = i.service_id
        WHERE s.status NOT IN ('cancelled', 'terminated') AND i.power_state IN ('running', 'stopped')`,
    );
  }

  /**
   * Records the hypervisor's states where the recorded one is still what was compared, nothing
   * recorded a state since the hypervisor was asked (`askedMsAgo`, measured on the monotonic clock)
   * and no action runs; returns the VPSes that changed. The moment is the
   * database's clock less that time, never this process's wall clock: a replica whose clock is
   * behind would never correct a drift, one ahead would overwrite a state recorded after it asked.
   */
  async applyObserved(
    manager: EntityManager,
    changes: ObservedChange[],
    askedMsAgo: number,
  ): Promise<(ObservedChange & { accountId: string })[]> {
    return sqlRows<ObservedChange & { accountId: string }>(
      manager,
      `WITH changed AS (
         UPDATE vps_instances i SET power_state = r.real, updated_at = now()
           FROM unnest($1::uuid[], $2::text[], $3::text[]) AS r(id, recorded, real)
          WHERE i.service_id = r.id AND i.power_state = r.recorded
            AND i.updated_at < clock_timestamp() - $4::double precision * interval '1 millisecond'
            AND NOT EXISTS (SELECT 1 FROM instance_actions a WHERE a.service_id = r.id AND a.status = 'running')
          RETURNING i.service_id, r.recorded, r.real
       ) SELECT c.service_id AS id, c.recorded, c.real, s.account_id AS "accountId" FROM changed c JOIN services s ON s.id = c.service_id`,
      [changes.map((c) => c.id), changes.map((c) => c.recorded), changes.map((c) => c.real), askedMsAgo],
    );
  }
}
