import type { Readable } from 'node:stream';

/** A store refused or could not be reached; the backup fails with `backup_store_unavailable`. */
export class BackupStoreError extends Error {
  readonly code = 'backup_store_unavailable';
}

/**
 * Where backups live, off the hypervisors: a port like ComputeProvider. `put` streams
 * a disk in (never the whole disk in memory) and is all or nothing: when it rejects, nothing is
 * left under the key; a put cut short by a dying process is cleaned by `abandon`.
 */
export abstract class BackupStore {
  /** Stores the stream's bytes under `key`; resolves with their number once the object is complete. */
  abstract put(key: string, body: Readable, onProgress?: (bytes: number) => Promise<void> | void): Promise<number>;

  /** The object's bytes as a stream (rejects when it is missing). */
  abstract get(key: string): Promise<Readable>;

  /** Deletes the object; one already gone is fine. */
  abstract remove(key: string): Promise<void>;

  /** Whatever an interrupted put left under the key (a multipart upload, a partial file) goes, with the object. */
  abstract abandon(key: string): Promise<void>;

  /** The keys under a prefix (a service's folder), to prove nothing of it is left. */
  abstract list(prefix: string): Promise<string[]>;
}

/** A backup's object: one folder per service, so a terminated service's backups are found by prefix too. */
export const backupKey = (serviceId: string, backupId: string): string => `vps/${serviceId}/${backupId}.qcow2`;
