import { Module } from '@nestjs/common';
import { AppConfig } from '@app/core';
import { ServicesModule } from '@app/services';
import { ObjectStorageKind } from './service-kind/object-storage.kind';
import { ObjectStorageController } from './object-storage.controller';
import { ObjectStorageCredentialsRepository } from './object-storage-credentials.repository';
import { ObjectStorageDemoSeeder } from './object-storage.demo';
import { ObjectStorageKeys } from './object-storage-keys';
import { ObjectStorageLifecycle } from './object-storage-lifecycle';
import { ObjectStorageProvider } from './object-storage-provider';
import { ObjectStorageReconcileJob } from './object-storage-reconcile.job';
import { ObjectStorageService } from './object-storage.service';
import { ObjectStorageSync } from './object-storage-sync';
import { ObjectStorageUsage } from './object-storage-usage';
import { ObjectStorageUsersRepository } from './object-storage-users.repository';
import { RgwObjectStorageProvider } from './rgw/rgw-object-storage.provider';
import { SimulatedObjectStorageProvider } from './simulated-object-storage.provider';

/** Object storage services: the gateway users, their S3 keys and usage, behind the storage port. */
@Module({
  imports: [ServicesModule],
  controllers: [ObjectStorageController],
  providers: [
    ObjectStorageKind,
    ObjectStorageService,
    ObjectStorageKeys,
    ObjectStorageCredentialsRepository,
    ObjectStorageUsersRepository,
    ObjectStorageSync,
    ObjectStorageLifecycle,
    ObjectStorageUsage,
    ObjectStorageReconcileJob,
    ObjectStorageDemoSeeder,
    // Adapters: the simulator by default; OBJECT_STORAGE_PROVIDER=rgw drives a Ceph RADOS Gateway.
    {
      provide: ObjectStorageProvider,
      inject: [AppConfig],
      useFactory: (config: AppConfig): ObjectStorageProvider =>
        config.objectStorage.provider === 'rgw' ? new RgwObjectStorageProvider(config.objectStorage) : new SimulatedObjectStorageProvider(),
    },
  ],
})
export class ObjectStorageModule {}
