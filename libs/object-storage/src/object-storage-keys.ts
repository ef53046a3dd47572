import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { SecretBox } from '@app/core';
import { ObjectStorageCredentialsRepository } from './object-storage-credentials.repository';
import { ObjectStorageLifecycle } from './object-storage-lifecycle';
import { ObjectStorageProvider } from './object-storage-provider';
import { ObjectStorageUsersRepository } from './object-storage-users.repository';
import { newS3Key, serviceBucket } from './s3-keys';

/** Writing a service's S3 key, sealed (AES-256-GCM), inside the caller's transaction; the gateway follows through the lifecycle. */
@Injectable()
export class ObjectStorageKeys {
  constructor(
    private readonly credentials: ObjectStorageCredentialsRepository,
    private readonly users: ObjectStorageUsersRepository,
    private readonly storage: ObjectStorageProvider,
    private readonly lifecycle: ObjectStorageLifecycle,
    private readonly box: SecretBox,
  ) {}

  /** A key for a service that has none (the simulator's first request); a real gateway gets it through the queue. */
  async issue(m: EntityManager, serviceId: string): Promise<void> {
    const [region] = [...(await this.users.regions(m, [serviceId])).values()];
    const location = this.storage.location(region) ?? this.storage.location()!;
    const { secretAccessKey, ...key } = newS3Key();
    await this.credentials.insert(m, serviceId, { ...location, bucket: serviceBucket(serviceId), ...key }, this.box.seal(secretAccessKey));
    if (region !== undefined) await this.lifecycle.changed(m, serviceId);
  }

  /** A new key in place of the old one (a service without one gets one first); returns its access key id. */
  async replace(m: EntityManager, serviceId: string): Promise<string> {
    if (!(await this.credentials.find(m, serviceId))) await this.issue(m, serviceId);
    const { accessKeyId, secretAccessKey } = newS3Key();
    await this.credentials.replaceKey(m, serviceId, accessKeyId, this.box.seal(secretAccessKey));
    await this.lifecycle.changed(m, serviceId);
    return accessKeyId;
  }
}
