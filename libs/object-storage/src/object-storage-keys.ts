import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { ObjectStorageCredentialsRepository } from './object-storage-credentials.repository';
import { ObjectStorageLifecycle } from './object-storage-lifecycle';
import { ObjectStorageProvider } from './object-storage-provider';
import { ObjectStorageUsersRepository } from './object-storage-users.repository';
import { newAccessKeyId, serviceBucket } from './s3-keys';

/**
 * A service's new S3 key, inside the caller's transaction: its id is written here, its secret is
 * made by the gateway (the simulator too) when the sync adds the key, and stored sealed then.
 */
@Injectable()
export class ObjectStorageKeys {
  constructor(
    private readonly credentials: ObjectStorageCredentialsRepository,
    private readonly users: ObjectStorageUsersRepository,
    private readonly storage: ObjectStorageProvider,
    private readonly lifecycle: ObjectStorageLifecycle,
  ) {}

  /** A key for a service that has none (the simulator's first request; a real gateway's is made at provisioning). */
  async issue(m: EntityManager, serviceId: string): Promise<void> {
    const [region] = [...(await this.users.regions(m, [serviceId])).values()];
    const location = this.storage.location(region) ?? this.storage.location()!;
    await this.credentials.insert(m, serviceId, { ...location, bucket: serviceBucket(serviceId), accessKeyId: newAccessKeyId() });
    await this.lifecycle.changed(m, serviceId);
  }

  /** A new key in place of the old one (a service without one gets one first); returns its access key id. */
  async replace(m: EntityManager, serviceId: string): Promise<string> {
    if (!(await this.credentials.find(m, serviceId))) await this.issue(m, serviceId);
    const accessKeyId = newAccessKeyId();
    await this.credentials.replaceKey(m, serviceId, accessKeyId);
    await this.lifecycle.changed(m, serviceId);
    return accessKeyId;
  }
}
