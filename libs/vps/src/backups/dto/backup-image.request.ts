import { CreateSnapshotRequest } from './create-snapshot.request';

/** The name of the snapshot image a backup becomes (the same rules as a snapshot's). */
export class BackupImageRequest extends CreateSnapshotRequest {}
