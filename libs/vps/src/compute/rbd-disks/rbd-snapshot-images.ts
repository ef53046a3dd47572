import { rbdImageOf, rbdRootOf } from './rbd-disk-names';
import type { RbdImages } from './rbd-images';
import type { CephRunOptions } from '../volumes/ceph-cli';

/** The VPS root disk's RBD snapshot a snapshot image is copied from, removed once the image is complete. */
export const snapshotOf = (imageId: string): string => `snap-${imageId}`;

/**
 * A snapshot of a VPS whose disk is on Ceph, as the image `img-<image id>` of the same pool, from
 * which VPSes of the region are cloned as from any image: first the point in time (an RBD snapshot
 * of the root, taken while the guest's filesystems are frozen, in a moment), then the image made
 * from it, standalone (a clone flattened: no chain back to the VPS or its image), and `@base`
 * protected last: an image without it is what an interrupted try left, made again.
 */
export class RbdSnapshotImages {
  constructor(private readonly images: RbdImages) {}

  /** Whether the image is complete already (a try whose answer was lost): nothing to capture. */
  done(imageId: string): Promise<boolean> {
    return this.images.hasBase(rbdImageOf(imageId));
  }

  /** The point in time, `svc-<id>-root@snap-<image id>`; an earlier try's is kept. */
  async capture(serviceId: string, imageId: string): Promise<void> {
    const root = rbdRootOf(serviceId);
    if ((await this.images.snapshots(root)).includes(snapshotOf(imageId))) return;
    await this.images.cli.rbd(['snap', 'create', `${this.images.spec(root)}@${snapshotOf(imageId)}`, '--no-progress']);
  }

  async copyToImage(serviceId: string, imageId: string): Promise<void> {
    const root = rbdRootOf(serviceId);
    const image = rbdImageOf(imageId);
    const from = `${this.images.spec(root)}@${snapshotOf(imageId)}`;
    const rbd = (args: string[], options?: CephRunOptions) => this.images.cli.rbd(args, options);
    if (!(await this.images.hasBase(image))) {
      await this.images.removeOurs(image);
      if (!(await this.images.isProtected(root, snapshotOf(imageId)))) await rbd(['snap', 'protect', from]);
      await rbd(['clone', from, this.images.spec(image)]);
      await this.images.mark(image);
      await rbd(['flatten', this.images.spec(image), '--no-progress'], { transfer: true });
      await this.images.makeBase(image);
    }
    await this.drop(serviceId, imageId);
  }

  /** The root's snapshot, no longer needed (or a failed try's); gone is fine. */
  async drop(serviceId: string, imageId: string): Promise<void> {
    const root = rbdRootOf(serviceId);
    if (!(await this.images.exists(root)) || !(await this.images.snapshots(root)).includes(snapshotOf(imageId))) return;
    const at = `${this.images.spec(root)}@${snapshotOf(imageId)}`;
    if (await this.images.isProtected(root, snapshotOf(imageId))) await this.images.cli.rbd(['snap', 'unprotect', at]);
    await this.images.cli.rbd(['snap', 'rm', at, '--no-progress']);
  }

  sizeOf(imageId: string): Promise<number> {
    return this.images.usedBytes(rbdImageOf(imageId));
  }
}
