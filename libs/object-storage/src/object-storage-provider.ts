/** An S3 key pair of a gateway user. */
export interface S3Key {
  accessKeyId: string;
  secretAccessKey: string;
}

/** A key a gateway user must have; the secret is null until the gateway has made it. */
export interface GatewayKey {
  accessKeyId: string;
  secretAccessKey: string | null;
}

/** Where customers of a region reach the store, and the region they sign requests for. */
export interface StorageLocation {
  endpoint: string;
  region: string;
}

/** What a service's gateway user must look like; `apply` makes it so, however much of it exists. */
export interface GatewayUserSpec {
  uid: string;
  region: string;
  displayName: string;
  quotaBytes: number;
  quotaObjects: number;
  maxBuckets: number;
  suspended: boolean;
  /** Exactly these keys: missing ones are added (the gateway makes their secrets), others removed. */
  keys: GatewayKey[];
  /** Made with the first key if missing (only while the user is not suspended). */
  bucket: string | null;
}

export interface GatewayUsage {
  usedBytes: number;
  objects: number;
  buckets: number;
}

export interface GatewayBucket {
  name: string;
  sizeBytes: number;
  objects: number;
  createdAt: string | null;
}

/** The gateway could not be reached or failed (5xx, timeout): the step is retried later. */
export class ObjectStorageUnavailableError extends Error {}

/** The port to the S3-compatible storage backend (Ceph RGW; the simulator by default). */
export abstract class ObjectStorageProvider {
  /** False for the simulator: nothing outside the database to provision. */
  abstract readonly remote: boolean;
  /** Endpoint and region of a region (the default one when undefined); null for an unknown region. */
  abstract location(region?: string): StorageLocation | null;
  /**
   * Idempotent: reads the user first and changes only what differs. Returns the spec's keys whose
   * secret the gateway holds other than the spec says (made now, or changed there), for the caller
   * to store: a secret is made by the gateway and read from its answers, never sent in a URL.
   */
  abstract apply(spec: GatewayUserSpec): Promise<S3Key[]>;
  /** Deletes the user with its buckets and objects; nothing to do when it is gone. */
  abstract purge(uid: string, region: string): Promise<void>;
  /** The user's stats, synced from its buckets first. Null when the user does not exist. */
  abstract usage(uid: string, region: string): Promise<GatewayUsage | null>;
  abstract buckets(uid: string, region: string): Promise<GatewayBucket[]>;
}
