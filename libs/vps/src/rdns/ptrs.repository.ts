import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { runSql, sqlFirst, sqlRows } from '@app/core';

/** A VPS of the caller's account as its addresses' PTRs need it. */
export interface PtrTarget {
  id: string;
  name: string;
  status: string;
  ipv4: string | null;
  ipv6: string | null;
  networkMode: 'user' | 'bridge' | null;
}

/** Who holds an address now (a live VPS), and the PTR its owner set; null when nobody does. */
export interface AddressHolder {
  serviceId: string;
  name: string;
  ptr: string | null;
}

/** Every statement on the PTRs customers set on their VPSes' addresses. */
@Injectable()
export class PtrsRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** The account's VPS, its instance row locked for the change (null: none of this id). */
  targetForAccount(manager: EntityManager, accountId: string, serviceId: string): Promise<PtrTarget | null> {
    return sqlFirst<PtrTarget>(
      manager,
      `SELECT s.id, s.name, s.status, i.ipv4, i.ipv6, i.network->>'mode' AS "networkMode"
         FROM services s JOIN vps_instances i ON i.service_id = s.id
        WHERE s.id = $1 AND s.account_id = $2 FOR UPDATE OF i`,
      [serviceId, accountId],
    );
  }

  async set(manager: EntityManager, serviceId: string, address: string, ptr: string | null): Promise<void> {
    if (ptr === null) await runSql(manager, `DELETE FROM vps_address_ptrs WHERE address = $1`, [address]);
    else
      await runSql(
        manager,
        `INSERT INTO vps_address_ptrs (address, service_id, ptr) VALUES ($1, $2, $3)
         ON CONFLICT (address) DO UPDATE SET service_id = $2, ptr = $3, updated_at = now()`,
        [address, serviceId, ptr],
      );
  }

  /** Forgets the PTRs the VPS's owner set; returns their addresses, and with `all` every address of the VPS. */
  async forget(manager: EntityManager, serviceId: string, all: boolean): Promise<string[]> {
    const rows = await sqlRows<{ address: string | null }>(
      manager,
      `SELECT address FROM vps_address_ptrs WHERE service_id = $1
       UNION SELECT unnest(ARRAY[ipv4, ipv6]) FROM vps_instances WHERE service_id = $1 AND $2::boolean AND network->>'mode' = 'bridge'`,
      [serviceId, all],
    );
    await runSql(manager, `DELETE FROM vps_address_ptrs WHERE service_id = $1`, [serviceId]);
    return rows.map((row) => row.address).filter((address): address is string => !!address);
  }

  /** The public addresses (bridge networking) of these VPSes. */
  async publicAddresses(manager: EntityManager, serviceIds: string[]): Promise<string[]> {
    const rows = await sqlRows<{ address: string | null }>(
      manager,
      `SELECT unnest(ARRAY[ipv4, ipv6]) AS address FROM vps_instances WHERE service_id = ANY($1::uuid[]) AND network->>'mode' = 'bridge'`,
      [serviceIds],
    );
    return rows.map((row) => row.address).filter((address): address is string => !!address);
  }

  holderOf(address: string, manager?: EntityManager): Promise<AddressHolder | null> {
    return sqlFirst<AddressHolder>(
      manager ?? this.dataSource,
      `SELECT s.id AS "serviceId", s.name,
              (SELECT p.ptr FROM vps_address_ptrs p WHERE p.address = $1 AND p.service_id = s.id) AS ptr
         FROM vps_instances i JOIN services s ON s.id = i.service_id
        WHERE (i.ipv4 = $1 OR i.ipv6 = $1) AND s.status NOT IN ('terminated', 'cancelled') AND i.network->>'mode' IS DISTINCT FROM 'user'
        LIMIT 1`,
      [address],
    );
  }
}
