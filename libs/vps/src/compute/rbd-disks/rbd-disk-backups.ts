import { createWriteStream } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { ComputeProviderError } from '../compute-provider';
import { convertDisk } from './qemu-img';
import { rbdRootOf } from './rbd-disk-names';
import { importSparse } from './rbd-sparse-import';
import type { RbdImages } from './rbd-images';

/** The VPS root disk's RBD snapshot a backup is read from, removed when the backup is released. */
export const backupSnapshotOf = (exportId: string): string => `backup-${exportId}`;

/**
 * Backups of a VPS whose disk is on Ceph, in the same qcow2 form as every other backup (so a restore,
 * an image made from a backup or an evacuation read any of them): the point in time is an RBD
 * snapshot of the root (taken under the guest agent's freeze), exported sparse to a folder of the
 * API host and converted to qcow2 there (both about the data's size, not the disk's); the folder and
 * the snapshot go when the backup is released. A restore makes the root again from a backup:
 * written to that folder, converted to raw and its data imported as the new root (rbd-sparse-import.ts).
 */
export class RbdDiskBackups {
  constructor(
    private readonly images: RbdImages,
    private readonly qemuImg = 'qemu-img',
    private readonly workDir = tmpdir(),
  ) {}

  /** The point in time; an earlier try's is kept. */
  async capture(serviceId: string, exportId: string): Promise<void> {
    const root = rbdRootOf(serviceId);
    if ((await this.images.snapshots(root)).includes(backupSnapshotOf(exportId))) return;
    await this.images.cli.rbd(['snap', 'create', `${this.images.spec(root)}@${backupSnapshotOf(exportId)}`, '--no-progress']);
  }

  /** The snapshot as a qcow2 file of the API host, made afresh (an earlier try's may be partial). */
  async toQcow2(serviceId: string, exportId: string): Promise<string> {
    const dir = this.dirOf(exportId);
    await rm(dir, { recursive: true, force: true });
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const raw = join(dir, 'disk.raw');
    const qcow2 = join(dir, 'disk.qcow2');
    const snapshot = `${this.images.spec(rbdRootOf(serviceId))}@${backupSnapshotOf(exportId)}`;
    await this.images.cli.rbd(['export', '--no-progress', snapshot, raw], { transfer: true });
    await convertDisk({ file: raw, format: 'raw' }, { file: qcow2, format: 'qcow2' }, this.failed('backup_failed'), this.qemuImg);
    await rm(raw, { force: true });
    return qcow2;
  }

  /** The folder and the snapshot; what is gone is fine. */
  async release(serviceId: string, exportId: string): Promise<void> {
    await rm(this.dirOf(exportId), { recursive: true, force: true });
    const root = rbdRootOf(serviceId);
    if (!(await this.images.exists(root)) || !(await this.images.snapshots(root)).includes(backupSnapshotOf(exportId))) return;
    await this.images.cli.rbd(['snap', 'rm', `${this.images.spec(root)}@${backupSnapshotOf(exportId)}`, '--no-progress']);
  }

  /** The root made again from the backup's qcow2 stream; the old root (never another deployment's) and its snapshots go. */
  async restore(serviceId: string, open: () => Promise<Readable>): Promise<void> {
    const root = rbdRootOf(serviceId);
    await this.images.refuseForeign(root);
    const dir = await mkdtemp(join(this.workDir, 'rbd-restore-'));
    try {
      const qcow2 = join(dir, 'backup.qcow2');
      const raw = join(dir, 'disk.raw');
      // Opened first: a backup the store cannot give leaves the old disk as it is.
      const source = await open();
      await pipeline(source, createWriteStream(qcow2, { mode: 0o600 })).catch((err: Error) =>
        Promise.reject(new ComputeProviderError('restore_failed', `The backup could not be read: ${err.message}`)),
      );
      await convertDisk({ file: qcow2, format: 'qcow2' }, { file: raw, format: 'raw' }, this.failed('restore_failed'), this.qemuImg);
      await rm(qcow2, { force: true });
      await this.images.removeOurs(root);
      await importSparse(this.images.cli, raw, this.images.spec(root), this.qemuImg);
      await this.images.mark(root);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  private dirOf(exportId: string): string {
    return join(this.workDir, `rbd-backup-${exportId}`);
  }

  private failed(code: string): { code: string; message: string } {
    return { code, message: code === 'backup_failed' ? 'The disk could not be read from Ceph.' : 'The backup is not a disk image.' };
  }
}
