import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { runSql, sqlFirst } from '@app/core';

/** Which system of a VPS a host key is for: its own, or the rescue system booted in its place. */
export type HostKeySystem = 'vps' | 'rescue';

export interface StoredHostKey {
  publicKey: string;
  privateKeySealed: string;
}

/** Every statement on vps_host_keys. */
@Injectable()
export class HostKeysRepository {
  constructor(private readonly dataSource: DataSource) {}

  find(serviceId: string, system: HostKeySystem, manager?: EntityManager): Promise<StoredHostKey | null> {
    return sqlFirst<StoredHostKey>(
      manager ?? this.dataSource,
      `SELECT public_key AS "publicKey", private_key_sealed AS "privateKeySealed" FROM vps_host_keys WHERE service_id = $1 AND system = $2`,
      [serviceId, system],
    );
  }

  /** Writes the key unless one is there (`replace`: writes it anyway); returns the public key kept. */
  async put(manager: EntityManager, serviceId: string, system: HostKeySystem, key: StoredHostKey, replace: boolean): Promise<string> {
    const conflict = replace
      ? `DO UPDATE SET public_key = EXCLUDED.public_key, private_key_sealed = EXCLUDED.private_key_sealed, created_at = now()`
      : `DO NOTHING`;
    const written = await sqlFirst<{ publicKey: string }>(
      manager,
      `INSERT INTO vps_host_keys (service_id, system, public_key, private_key_sealed) VALUES ($1, $2, $3, $4)
       ON CONFLICT (service_id, system) ${conflict} RETURNING public_key AS "publicKey"`,
      [serviceId, system, key.publicKey, key.privateKeySealed],
    );
    // No row back: DO NOTHING kept the key another writer put there first.
    return written?.publicKey ?? (await this.find(serviceId, system, manager))!.publicKey;
  }

  async remove(manager: EntityManager, serviceId: string): Promise<void> {
    await runSql(manager, `DELETE FROM vps_host_keys WHERE service_id = $1`, [serviceId]);
  }
}
