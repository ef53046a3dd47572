import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { isoText, sqlCount, sqlFirst } from '@app/core';
import type { ServiceStatus, ServiceType } from '@app/services';

/**
 * An object_storage_credentials row; the secret stays sealed (SecretBox) until the response is
 * made, and is null until the gateway has made it (a new key the sync has not added yet).
 */
export interface CredentialRow {
  endpoint: string;
  region: string;
  bucket: string;
  access_key_id: string;
  secret_sealed: string | null;
  created_at: string;
}

export type ServiceWithCredentials = { type: ServiceType; status: ServiceStatus; gateway_state: string | null } & Partial<CredentialRow>;

const COLUMNS = `c.endpoint, c.region, c.bucket, c.access_key_id, c.secret_sealed, ${isoText('c.created_at')} AS created_at`;

@Injectable()
export class ObjectStorageCredentialsRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** The account's service with its credentials if issued; null when it is missing or another's. */
  async findWithService(accountId: string, serviceId: string): Promise<ServiceWithCredentials | null> {
    const row = await sqlFirst<ServiceWithCredentials>(
      this.dataSource,
      `SELECT s.type, s.status, u.gateway_state, ${COLUMNS}
         FROM services s LEFT JOIN object_storage_credentials c ON c.service_id = s.id
         LEFT JOIN object_storage_users u ON u.service_id = s.id
        WHERE s.id = $1 AND s.account_id = $2`,
      [serviceId, accountId],
    );
    return row ?? null;
  }

  async find(manager: EntityManager, serviceId: string): Promise<CredentialRow | null> {
    const row = await sqlFirst<CredentialRow>(manager, `SELECT ${COLUMNS} FROM object_storage_credentials c WHERE c.service_id = $1`, [
      serviceId,
    ]);
    return row ?? null;
  }

  /** A new key replaces the service's key (rotation); its secret follows from the gateway. */
  async replaceKey(manager: EntityManager, serviceId: string, accessKeyId: string): Promise<void> {
    await sqlCount(
      manager,
      `UPDATE object_storage_credentials SET access_key_id = $2, secret_sealed = NULL, created_at = now() WHERE service_id = $1`,
      [serviceId, accessKeyId],
    );
  }

  /** A key without its secret yet: the gateway makes it when the sync adds the key. */
  async insert(
    manager: EntityManager,
    serviceId: string,
    issued: { endpoint: string; region: string; bucket: string; accessKeyId: string },
  ): Promise<void> {
    await sqlCount(
      manager,
      `INSERT INTO object_storage_credentials (service_id, endpoint, region, bucket, access_key_id) VALUES ($1, $2, $3, $4, $5)`,
      [serviceId, issued.endpoint, issued.region, issued.bucket, issued.accessKeyId],
    );
  }

  /** The secret the gateway holds for a key, unless the service has moved on to another key meanwhile. */
  async storeSecret(serviceId: string, accessKeyId: string, secretSealed: string): Promise<void> {
    await sqlCount(
      this.dataSource,
      `UPDATE object_storage_credentials SET secret_sealed = $3 WHERE service_id = $1 AND access_key_id = $2`,
      [serviceId, accessKeyId, secretSealed],
    );
  }
}
