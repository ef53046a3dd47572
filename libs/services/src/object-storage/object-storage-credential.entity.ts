import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

@Entity('object_storage_credentials')
export class ObjectStorageCredential {
  @PrimaryColumn({ name: 'service_id', type: 'uuid' })
  serviceId: string;

  @Column({ type: 'varchar', length: 200 })
  endpoint: string;

  @Column({ type: 'varchar', length: 32 })
  region: string;

  @Column({ type: 'varchar', length: 63 })
  bucket: string;

  @Column({ name: 'access_key_id', type: 'varchar', length: 64 })
  accessKeyId: string;

  /** The secret access key, sealed with AES-256-GCM (SecretBox). */
  @Column({ name: 'secret_sealed', type: 'text', select: false })
  secretSealed: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
