import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { ActivityLog, domainEvent, Principal, Problem, SecretBox, TransactionRunner } from '@app/core';
import { ServiceOwnership } from '@app/services';
import type { ServiceStatus, ServiceType } from '@app/services';
import { ObjectStorageCredentialsResponse } from './dto/object-storage-credentials.response';
import { CredentialRow, ObjectStorageCredentialsRepository } from './object-storage-credentials.repository';
import { ObjectStorageLifecycle } from './object-storage-lifecycle';
import { ObjectStorageKeys } from './object-storage-keys';
import type { ObjectStorageKeyRotatedEvent } from './object-storage.events';

type StorageService = { type: ServiceType; status: ServiceStatus; gateway_state?: string | null };

/**
 * The S3 key of an object storage service, shown to its owner and rotated. On a real gateway it is
 * made with the gateway user at provisioning; on the simulator it is issued on first request. Its
 * secret is made by the gateway: a key it has not made yet is answered 409 `invalid_state`.
 */
@Injectable()
export class ObjectStorageService {
  constructor(
    private readonly credentials: ObjectStorageCredentialsRepository,
    private readonly ownership: ServiceOwnership,
    private readonly keys: ObjectStorageKeys,
    private readonly lifecycle: ObjectStorageLifecycle,
    private readonly tx: TransactionRunner,
    private readonly box: SecretBox,
    private readonly activity: ActivityLog,
  ) {}

  async credentialsFor(caller: Principal, serviceId: string): Promise<ObjectStorageCredentialsResponse> {
    const { accountId } = caller;
    const row = await this.credentials.findWithService(accountId, serviceId);
    this.check(row);
    // First request: issue under the service row lock, so concurrent first requests agree on one key.
    const issued =
      !row.access_key_id &&
      (await this.tx.run(async (m) => {
        this.check(await this.ownership.lockFor(m, accountId, serviceId));
        if (await this.credentials.find(m, serviceId)) return false;
        await this.keys.issue(m, serviceId);
        return true;
      }));
    const ready = row.secret_sealed ? (row as CredentialRow) : await this.madeByGateway(accountId, serviceId);
    await this.tx.run((m) => this.recordView(m, caller, serviceId, issued));
    return this.respond(ready);
  }

  /** A new key; the old one is removed from the gateway (at once when it answers, else by the queued job). */
  async rotate(caller: Principal, serviceId: string): Promise<ObjectStorageCredentialsResponse> {
    const { accountId } = caller;
    await this.tx.run(async (m, publish) => {
      const service = await this.ownership.lockFor(m, accountId, serviceId);
      this.check(service);
      const accessKeyId = await this.keys.replace(m, serviceId);
      publish(
        domainEvent<ObjectStorageKeyRotatedEvent>('object_storage.credentials_rotated', accountId, {
          serviceId,
          serviceName: service.name,
          accessKeyId,
        }),
      );
      await this.activity.record(m, {
        accountId,
        caller,
        action: 'object_storage.credentials_rotate',
        entity: { type: 'service', id: serviceId },
        details: { accessKeyId },
      });
    });
    return this.respond(await this.madeByGateway(accountId, serviceId));
  }

  /** The key once the gateway has made its secret: the sync is tried at once (waiting for another process holding it). */
  private async madeByGateway(accountId: string, serviceId: string): Promise<CredentialRow> {
    await this.lifecycle.settle([serviceId]);
    const row = await this.credentials.findWithService(accountId, serviceId);
    this.check(row);
    if (!row.access_key_id || !row.secret_sealed)
      throw Problem.conflict('invalid_state', 'The storage gateway has not made the new key yet; get the credentials again in a moment.');
    return row as CredentialRow;
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

  private check(service: StorageService | null | undefined): asserts service {
    if (!service) throw Problem.notFound('Service');
    if (service.type !== 'object_storage')
      throw new Problem(404, 'not_found', 'This service has no object storage (it is not an object storage service).');
    if (service.status !== 'active')
      throw Problem.conflict('invalid_state', `The service is ${service.status}; credentials need an active service.`);
    if (service.gateway_state === 'pending')
      throw Problem.conflict('invalid_state', 'The storage is still being provisioned on the gateway; try again in a moment.');
  }

  private respond(row: CredentialRow): ObjectStorageCredentialsResponse {
    return ObjectStorageCredentialsResponse.fromRow(row, this.box.open(row.secret_sealed!));
  }
}
