import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { Problem, SecretBox, TransactionRunner } from '@app/core';
import { ServicesRepository } from '../services.repository';
import { isoText } from '../services.queries';
import type { ServiceStatus, ServiceType } from '../service.types';
import { ObjectStorageCredentialsResponse } from './dto/object-storage-credentials.response';
import { ObjectStorageProvider } from './object-storage-provider';

interface CredentialRow {
  endpoint: string;
  region: string;
  bucket: string;
  access_key_id: string;
  secret_sealed: string;
  created_at: string;
}

const CREDENTIAL_COLUMNS = `c.endpoint, c.region, c.bucket, c.access_key_id, c.secret_sealed, ${isoText('c.created_at')} AS created_at`;

/** The access key of an object storage service, issued on first request and kept sealed (AES-256-GCM). */
@Injectable()
export class ObjectStorageService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly services: ServicesRepository,
    private readonly storage: ObjectStorageProvider,
    private readonly tx: TransactionRunner,
    private readonly box: SecretBox,
  ) {}

  async credentials(accountId: string, serviceId: string): Promise<ObjectStorageCredentialsResponse> {
    const [row]: (Partial<CredentialRow> & { type: ServiceType; status: ServiceStatus })[] = await this.dataSource.query(
      `SELECT s.type, s.status, ${CREDENTIAL_COLUMNS}
         FROM services s LEFT JOIN object_storage_credentials c ON c.service_id = s.id
        WHERE s.id = $1 AND s.account_id = $2`,
      [serviceId, accountId],
    );
    this.check(row);
    if (row.access_key_id) return this.toResponse(row as CredentialRow);
    // First request: issue under the service row lock, so concurrent first requests agree on one key.
    return this.tx.run(async (m) => {
      this.check(await this.services.lockForAccount(m, accountId, serviceId));
      const existing = await this.find(m, serviceId);
      if (existing) return this.toResponse(existing);
      const issued = await this.storage.issueCredentials({ serviceId });
      await m.query(
        `INSERT INTO object_storage_credentials (service_id, endpoint, region, bucket, access_key_id, secret_sealed) VALUES ($1, $2, $3, $4, $5, $6)`,
        [serviceId, issued.endpoint, issued.region, issued.bucket, issued.accessKeyId, this.box.seal(issued.secretAccessKey)],
      );
      return this.toResponse((await this.find(m, serviceId))!);
    });
  }

  private check(service: { type: ServiceType; status: ServiceStatus } | null | undefined): asserts service {
    if (!service) throw Problem.notFound('Service');
    if (service.type !== 'object_storage') throw new Problem(404, 'not_found', 'This service has no object storage (it is not an object storage service).');
    if (service.status !== 'active') throw Problem.conflict('invalid_state', `The service is ${service.status}; credentials need an active service.`);
  }

  private async find(m: EntityManager, serviceId: string): Promise<CredentialRow | undefined> {
    const [row]: CredentialRow[] = await m.query(`SELECT ${CREDENTIAL_COLUMNS} FROM object_storage_credentials c WHERE c.service_id = $1`, [serviceId]);
    return row;
  }

  private toResponse(row: CredentialRow): ObjectStorageCredentialsResponse {
    return {
      endpoint: row.endpoint,
      region: row.region,
      bucket: row.bucket,
      accessKeyId: row.access_key_id,
      secretAccessKey: this.box.open(row.secret_sealed),
      createdAt: row.created_at,
    };
  }
}
