import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { ActivityLog, Principal, Problem, SecretBox, TransactionRunner } from '@app/core';
import { ServicesRepository } from '../services.repository';
import type { ServiceStatus, ServiceType } from '../service.types';
import { ObjectStorageCredentialsResponse } from './dto/object-storage-credentials.response';
import { CredentialRow, ObjectStorageCredentialsRepository } from './object-storage-credentials.repository';
import { ObjectStorageProvider } from './object-storage-provider';

/** The access key of an object storage service, issued on first request and kept sealed (AES-256-GCM). */
@Injectable()
export class ObjectStorageService {
  constructor(
    private readonly credentials: ObjectStorageCredentialsRepository,
    private readonly services: ServicesRepository,
    private readonly storage: ObjectStorageProvider,
    private readonly tx: TransactionRunner,
    private readonly box: SecretBox,
    private readonly activity: ActivityLog,
  ) {}

  async credentialsFor(caller: Principal, serviceId: string): Promise<ObjectStorageCredentialsResponse> {
    const { accountId } = caller;
    const row = await this.credentials.findWithService(accountId, serviceId);
    this.check(row);
    if (row.access_key_id) {
      await this.tx.run((m) => this.recordView(m, caller, serviceId, false));
      return this.respond(row as CredentialRow);
    }
    // First request: issue under the service row lock, so concurrent first requests agree on one key.
    return this.tx.run(async (m) => {
      this.check(await this.services.lockForAccount(m, accountId, serviceId));
      const existing = await this.credentials.find(m, serviceId);
      if (existing) {
        await this.recordView(m, caller, serviceId, false);
        return this.respond(existing);
      }
      const { secretAccessKey, ...issued } = await this.storage.issueCredentials({ serviceId });
      await this.credentials.insert(m, serviceId, issued, this.box.seal(secretAccessKey));
      await this.recordView(m, caller, serviceId, true);
      return this.respond((await this.credentials.find(m, serviceId))!);
    });
  }

  /** Who saw the secret, and when (never the secret itself). */
  private recordView(m: EntityManager, caller: Principal, serviceId: string, issued: boolean) {
    return this.activity.record(m, {
      accountId: caller.accountId,
      caller,
      action: 'object_storage.credentials_view',
      entity: { type: 'service', id: serviceId },
      details: { issued },
    });
  }

  private check(service: { type: ServiceType; status: ServiceStatus } | null | undefined): asserts service {
    if (!service) throw Problem.notFound('Service');
    if (service.type !== 'object_storage')
      throw new Problem(404, 'not_found', 'This service has no object storage (it is not an object storage service).');
    if (service.status !== 'active')
      throw Problem.conflict('invalid_state', `The service is ${service.status}; credentials need an active service.`);
  }

  private respond(row: CredentialRow): ObjectStorageCredentialsResponse {
    return ObjectStorageCredentialsResponse.fromRow(row, this.box.open(row.secret_sealed));
  }
}
