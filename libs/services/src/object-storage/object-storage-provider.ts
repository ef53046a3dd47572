/** The bucket a storage service stands for. */
export interface BucketRef {
  serviceId: string;
}

export interface IssuedCredentials {
  endpoint: string;
  region: string;
  bucket: string;
  accessKeyId: string;
  secretAccessKey: string;
}

/** The port to the S3-compatible storage backend (Ceph RGW, MinIO, Garage...). */
export abstract class ObjectStorageProvider {
  /** Creates the bucket if needed and an access key limited to it. */
  abstract issueCredentials(bucket: BucketRef): Promise<IssuedCredentials>;
}
